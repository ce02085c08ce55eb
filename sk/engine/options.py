"""SuperKernel option strings: `key=value:key=value`, as upstream parses them.

Grammar (upstream `parse_super_kernel_options`, facts §1.1):
  * an empty or blank string means "all defaults"; double quotes at either
    end are stripped, any number of them (a json.dumps artefact upstream
    tolerates), and so are spaces around them;
  * parts are separated by `:`; blank parts are dropped; a part without `=`
    is skipped with a warning;
  * key and value are split on the first `=` and stripped; an empty key or
    value, a duplicate key and an unknown key are errors.
Because `:` separates parts, no value can contain one; list values
(compile-options, dcci-*) use `,`, and their blank entries are dropped (`,`
alone is an empty list).

Every option of upstream's table (facts §1.2) is here with its allowed values
and default. Two options are ours (not upstream's). `sync-elision`: with 1,
the plan drops inter-op barriers that order no tensor hazard and narrows the
rest to the core types involved (sk.engine.elision; needs every op's
`tensors`); 0, the default, leaves the output exactly upstream's.
`allow-mix-1-2-in-1-1`: upstream fuses a MIX_AIC_1_2 sub-op into a SuperKernel
whose summary type is MIX_AIC_1_1 (facts §3.1), where the op's second vector
sub-block does not exist; 0, the default, makes that a build error, 1 keeps
upstream's behaviour (sk.engine.plan.hangs).

`parse_options(text) -> SkOptions`. `SkOptions.to_json()` returns
`{"options": {name: value}, "explicit": [names], "warnings": [text]}` with
option names as the user writes them (hyphens) and lists for list values.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable

from sk.base.errors import SkError

_DIGITS = re.compile(r"[0-9]+")
# Longer digit strings are not numbers anyone means (and int() refuses > 4300 digits).
_MAX_DIGITS = 18


def _enum(*allowed: str) -> Callable[[str, str], object]:
    def parse(name: str, value: str):
        if value not in allowed:
            raise SkError(
                "invalid value for option", where=f"option '{name}'", value=value,
                allowed="allowed values: " + ", ".join(allowed),
            )
        return int(value) if value.isdigit() else value
    return parse


def _is_whole(value: str) -> bool:
    return len(value) <= _MAX_DIGITS and _DIGITS.fullmatch(value) is not None


def _func_align(name: str, value: str) -> int:
    allowed = "allowed values: 0 (no alignment attribute) or a power of two >= 2, in decimal digits"
    if not _is_whole(value):
        raise SkError("invalid value for option", where=f"option '{name}'", value=value, allowed=allowed)
    n = int(value)
    if n != 0 and (n < 2 or n & (n - 1)):
        raise SkError("invalid value for option", where=f"option '{name}'", value=value, allowed=allowed)
    return n


# The most split copies of a function (upstream's limit); `sk subkernel pack --split-mode` checks it too.
SPLIT_MODE_MAX = 64


def _split_mode(name: str, value: str) -> int:
    allowed = f"allowed values: a whole number from 1 to {SPLIT_MODE_MAX}"
    if not _is_whole(value) or not 0 < int(value) <= SPLIT_MODE_MAX:
        raise SkError("invalid value for option", where=f"option '{name}'", value=value, allowed=allowed)
    return int(value)


def _block_num(name: str, value: str) -> int:
    if not _is_whole(value):
        raise SkError("invalid value for option", where=f"option '{name}'", value=value,
                      allowed=f"allowed values: a whole number >= 0 of at most {_MAX_DIGITS} digits "
                              "(0 = no override; the SoC's core count bounds it)")
    return int(value)


def _comma_list(name: str, value: str) -> tuple[str, ...]:
    # Upstream keeps the non-empty parts, so "," or " , " is an empty list, as if the option were absent.
    return tuple(part.strip() for part in value.split(",") if part.strip())


def _scope_check(name: str, value: str) -> str:
    # Upstream's python accepts any non-empty text; GE then asserts on it.
    # Reject early with the values GE accepts.
    return _enum("bypass", "abort")(name, value)


# option name -> value parser; the defaults are the SkOptions field defaults.
_TABLE: dict[str, Callable[[str, str], object]] = {
    "func-align": _func_align,
    "preload-code": _enum("max", "none", "per-func"),
    "early-start": _enum("0", "1", "2"),
    "stream-fusion": _enum("0", "1"),
    "debug-dcci-all": _enum("0", "1"),
    "debug-sync-all": _enum("0", "1"),
    "feed-sync-all": _enum("0", "1"),
    "profiling": _enum("0", "1"),
    "compile-options": _comma_list,
    "strict-scope-check": _scope_check,
    "dcci-before-kernel-start": _comma_list,
    "dcci-after-kernel-end": _comma_list,
    "dcci-disable-on-kernel": _comma_list,
    "split-mode": _split_mode,
    "debug-aic-num": _block_num,
    "debug-aiv-num": _block_num,
    # ours, beyond upstream: dependency-aware barrier elision (sk.engine.elision, sk.engine.plan).
    "sync-elision": _enum("0", "1"),
    # ours, beyond upstream: 1 fuses a MIX_AIC_1_2 sub-op into a MIX_AIC_1_1 SuperKernel as upstream
    # does; 0 (default) refuses it (sk.engine.plan.hangs).
    "allow-mix-1-2-in-1-1": _enum("0", "1"),
}

KNOWN_OPTIONS = tuple(_TABLE)


@dataclasses.dataclass(frozen=True)
class SkOptions:
    func_align: int = 512
    preload_code: str = "per-func"
    early_start: int = 1
    stream_fusion: int = 0
    debug_dcci_all: int = 0
    debug_sync_all: int = 0
    feed_sync_all: int = 0
    profiling: int = 0
    compile_options: tuple[str, ...] = ()
    strict_scope_check: str | None = None
    dcci_before_kernel_start: tuple[str, ...] = ()
    dcci_after_kernel_end: tuple[str, ...] = ()
    dcci_disable_on_kernel: tuple[str, ...] = ()
    split_mode: int = 4
    debug_aic_num: int = 0
    debug_aiv_num: int = 0
    sync_elision: int = 0
    allow_mix_1_2_in_1_1: int = 0
    explicit: frozenset = frozenset()
    warnings: tuple[str, ...] = ()

    def get(self, name: str):
        """The value of option `name` (hyphenated, as users write it)."""
        return getattr(self, _field(name))

    def to_json(self) -> dict:
        options = {}
        for name in KNOWN_OPTIONS:
            value = self.get(name)
            options[name] = list(value) if isinstance(value, tuple) else value
        return {
            "options": options,
            "explicit": sorted(self.explicit),
            "warnings": list(self.warnings),
        }


def _field(name: str) -> str:
    return name.replace("-", "_")


def _unknown(key: str) -> SkError:
    import difflib  # only on this error path (2 ms to import)

    near = difflib.get_close_matches(key, KNOWN_OPTIONS, n=1, cutoff=0.6)
    what = "option is not supported" + (f", did you mean '{near[0]}'?" if near else "")
    return SkError(what, where=f"option '{key}'", allowed="known options: " + ", ".join(KNOWN_OPTIONS))


def parse_options(text: str | None) -> SkOptions:
    """Parse an upstream SuperKernel option string (see module docstring)."""
    if text is None:
        return SkOptions()
    if not isinstance(text, str):
        raise SkError("super kernel options must be a string", where="super_kernel_options",
                      value=text, allowed="text such as 'stream-fusion=1:split-mode=4'")
    # Upstream strips any run of quotes at either end (json.dumps may add them); spaces around them too.
    text = text.strip().strip('"')
    values: dict[str, object] = {}
    warnings: list[str] = []
    for part in text.split(":"):
        part = part.strip()
        if not part:
            continue
        if "=" not in part:
            warnings.append(f"option part '{part}' has no '=' and was skipped")
            continue
        key, value = (s.strip() for s in part.split("=", 1))
        if not key or not value:
            raise SkError("the key-value pair is missing a key or a value", where=f"option part '{part}'",
                          allowed="write options as key=value, separated by ':'")
        if key not in _TABLE:
            raise _unknown(key)
        if key in values:
            raise SkError("option has been set more than once", where=f"option '{key}'", value=value,
                          allowed="give each option once")
        values[key] = _TABLE[key](key, value)
    _check_core_num_ratio(values)
    fields = {_field(k): v for k, v in values.items()}
    return SkOptions(**fields, explicit=frozenset(values), warnings=tuple(warnings))


def _check_core_num_ratio(values: dict) -> None:
    aic = values.get("debug-aic-num", 0)
    aiv = values.get("debug-aiv-num", 0)
    if aic and aiv and aiv not in (aic, 2 * aic):
        raise SkError(
            "debug-aic-num and debug-aiv-num have an unsupported ratio",
            where="options 'debug-aic-num'/'debug-aiv-num'", value=f"{aic}:{aiv}",
            allowed="the cube:vector ratio must be 1:0, 0:1, 1:1 or 1:2",
        )
