"""Where upstream's golden scenarios are (../shared/conformance/README.md), for the tests that read them.

$SK_CONFORMANCE_DIR; else $SK_CONFORMANCE_MARKER (the REASON file of @sk_conformance: data in its
sibling data/, a non-empty REASON means absent); else <repo root>/../shared/conformance.
"""

import os
import pathlib

REPO = pathlib.Path(__file__).resolve().parents[2]


def _locate():
    looked = []
    env = os.environ.get("SK_CONFORMANCE_DIR")
    if env:
        looked.append(f"$SK_CONFORMANCE_DIR={env}")
        if (pathlib.Path(env) / "INDEX.json").exists():
            return pathlib.Path(env), None
    marker = os.environ.get("SK_CONFORMANCE_MARKER")
    if marker:
        reason_file = pathlib.Path(marker)
        if not reason_file.is_absolute():
            reason_file = pathlib.Path.cwd() / reason_file
        looked.append(f"$SK_CONFORMANCE_MARKER={marker}")
        reason = reason_file.read_text().strip() if reason_file.exists() else "REASON file missing"
        if reason:
            return None, reason
        data = reason_file.parent / "data"
        if (data / "INDEX.json").exists():
            return data, None
    default = REPO.parent / "shared" / "conformance"
    looked.append(str(default))
    if (default / "INDEX.json").exists():
        return default, None
    return None, "upstream conformance data not found; looked at: " + ", ".join(looked)


DATA, WHY_ABSENT = _locate()
SCENARIOS = sorted(p.name for p in DATA.iterdir() if (p / "kernel_infos.json").exists()) if DATA else []
