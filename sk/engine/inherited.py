"""The one rule for which SuperKernel options reach a sub-kernel's compile.

Upstream compiles every sub-kernel in "SK sub" mode with the macros its
SuperKernel's options imply (facts §2.2, §14.3): feed-sync-all adds the
auto-sync-all macro; early-start adds the early-start macros unless
stream-fusion is on; the dcci-* lists drop the GetValue/SetValue dcci macro
for the op types they name; split-mode decides how many copies pack makes.
No other option changes a sub-kernel, so two SuperKernels that agree on
these keys can share its objects.

Both front ends use this module: `sk subkernel` steps read only these keys
(`inherited`), `sk run` hands them the projection (`project`), and Bazel's
configuration transition picks the same keys from the list rendered into
rules/private/inherited_keys.bzl (`python -m sk.engine.inherited > that
file`; //sk:inherited_test fails when the two differ). Starlark only picks
`key=value` parts by name; values are validated and given meaning here.
"""

from __future__ import annotations

from collections import namedtuple

from sk.engine import options as sk_options

# In upstream's order of the macros they produce (facts §2.2).
INHERITED_KEYS = (
    "early-start",
    "stream-fusion",
    "feed-sync-all",
    "split-mode",
    "dcci-before-kernel-start",
    "dcci-after-kernel-end",
    "dcci-disable-on-kernel",
)


class Inherited(namedtuple("Inherited", "early_start stream_fusion feed_sync_all split_mode "
                                        "dcci_before dcci_after dcci_disable")):
    """The SuperKernel options a sub-kernel is compiled with."""

    __slots__ = ()

    @property
    def early_start_macros(self) -> bool:
        """Early start V2 in the sub-kernel: early-start=1 and one stream (mode 2 adds none)."""
        return self.early_start == 1 and not self.stream_fusion

    def dcci_listed(self, op_type: str) -> tuple[bool, bool, bool]:
        """(before, after, disable): whether op_type is in each dcci-* list."""
        return tuple(bool(op_type) and op_type in names
                     for names in (self.dcci_before, self.dcci_after, self.dcci_disable))


def inherited(text: str | None) -> Inherited:
    """The inherited options of a SuperKernel option string (any other key is validated, then ignored)."""
    opts = sk_options.parse_options(text or "")
    return Inherited(
        early_start=int(opts.early_start),
        stream_fusion=bool(opts.stream_fusion),
        feed_sync_all=bool(opts.feed_sync_all),
        split_mode=int(opts.split_mode),
        dcci_before=tuple(opts.dcci_before_kernel_start),
        dcci_after=tuple(opts.dcci_after_kernel_end),
        dcci_disable=tuple(opts.dcci_disable_on_kernel),
    )


def project(text: str | None) -> str:
    """The option string a sub-kernel step needs: the inherited keys the user set, in table order."""
    opts = sk_options.parse_options(text or "")
    parts = []
    for key in INHERITED_KEYS:
        if key in opts.explicit:
            value = opts.get(key)
            parts.append(f"{key}={','.join(value) if isinstance(value, tuple) else value}")
    return ":".join(parts)


def render_bzl() -> str:
    """rules/private/inherited_keys.bzl: the keys Bazel's transition keeps."""
    keys = "".join(f'    "{key}",\n' for key in INHERITED_KEYS)
    return ("# Generated from sk/engine/inherited.py (python -m sk.engine.inherited > this file);\n"
            "# //sk:inherited_test fails when the two differ.\n"
            '"""The SuperKernel options a sub-kernel is compiled with (sk/engine/inherited.py)."""\n\n'
            f"INHERITED_KEYS = [\n{keys}]\n")


if __name__ == "__main__":
    print(render_bzl(), end="")
