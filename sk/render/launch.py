"""A LaunchSpec made text: the launch header of a super_kernel and its implementation (CPU twin or CANN).

sk.engine.launchspec decides the arguments, the launches and every slot; the
templates (launch.h.j2, launch_twin.cc.j2, launch_cann.cc.j2) spell them out.
Output is deterministic and holds no paths but the header's include path and
the embedded binaries' basenames.
"""

from __future__ import annotations

import dataclasses
import os

from sk.base.errors import SkError
from sk.engine.launchspec import LaunchSpec, SlotValue, twin_entries, twin_symbol

FLAVORS = ("host", "cann")


def _c_string(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def _value(v: SlotValue, ffts: str) -> str:
    if v.source == "arg":
        return f"reinterpret_cast<uint64_t>(a.{v.name})"
    if v.source == "workspace":
        return f"ws + {v.offset}u" if v.offset else "ws"
    if v.source == "ffts":
        return ffts
    return "0"


def _binary_text(path: str) -> tuple:
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as err:
        raise SkError("cannot read the kernel binary to embed", where=path, allowed=str(err.strerror or err)) from None
    if not data:
        raise SkError("the kernel binary to embed is empty", where=path)
    rows = [", ".join(f"0x{b:02x}" for b in data[i:i + 16]) for i in range(0, len(data), 16)]
    return "    " + ",\n    ".join(rows), len(data)


def render(spec: LaunchSpec, flavor: str, header_include: str) -> tuple:
    """(header text, implementation text) of `spec` for `flavor` ("host": the CPU twin, "cann")."""
    from sk.render import codegen

    if flavor not in FLAVORS:
        raise SkError("unknown launch flavour", where="--flavor", value=flavor, allowed=" or ".join(FLAVORS))
    s = dataclasses.replace(spec, label=_c_string(spec.label))
    env = codegen.environment()
    env.globals.update(
        ws_owner=lambda w: f"op {w.owner}" if w.owner else "the SuperKernel's own workspace (kernel JSON)",
        twin_value=lambda v: _value(v, "0"),
        cann_value=lambda v: _value(v, "ffts"),
        twin_entry=lambda l: f"&{twin_symbol(spec, twin_entries(l)[0])}",
        twin_entry_aiv=lambda l: f"&{twin_symbol(spec, twin_entries(l)[1])}" if twin_entries(l)[1] else "nullptr",
    )
    guard = "SK_LAUNCH_" + "".join(c if c.isalnum() else "_" for c in header_include.upper()) + "_"
    header = env.get_template("launch.h.j2").render(s=s, guard=guard)
    if flavor == "host":
        symbols = sorted({twin_symbol(spec, sym) for l in s.launches + s.unfused for sym in twin_entries(l) if sym})
        src = env.get_template("launch_twin.cc.j2").render(s=s, header=header_include, symbols=symbols)
    else:
        binaries, index = [], {}

        def cann_launch(l):
            if l.binary not in index:
                text, size = _binary_text(l.binary)
                index[l.binary] = len(binaries)
                binaries.append(dict(name=os.path.basename(l.binary), size=size, text=text))
            return dict(name=l.name, ops=l.ops, slots=l.slots, binary=index[l.binary],
                        needs_ffts=any(v.source == "ffts" for v in l.slots))

        src = env.get_template("launch_cann.cc.j2").render(
            s=s, header=header_include, launches=[cann_launch(l) for l in s.launches],
            unfused=[cann_launch(l) for l in s.unfused], binaries=binaries)
    return header, src
