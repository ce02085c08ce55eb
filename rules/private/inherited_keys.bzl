# Generated from sk/engine/inherited.py (python -m sk.engine.inherited > this file);
# //sk:inherited_test fails when the two differ.
"""The SuperKernel options a sub-kernel is compiled with (sk/engine/inherited.py)."""

INHERITED_KEYS = [
    "early-start",
    "stream-fusion",
    "feed-sync-all",
    "split-mode",
    "dcci-before-kernel-start",
    "dcci-after-kernel-end",
    "dcci-disable-on-kernel",
]
