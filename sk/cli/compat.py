"""Upstream's call shape: `compile(kernel_infos, kernel_name, compile_infos=None)`.

Like upstream `super_kernel.compile` (facts §0), this takes the kernel_infos
mapping and the SK name, and writes into a `kernel_meta` directory:
`<kernel_name>_kernel.cpp`, `<kernel_name>.json` and
`<kernel_name>.compile_options.json` (plus `<kernel_name>.plan.json`).

compile_infos (optional mapping):
  "kernel_meta_dir": where to write (default: ./kernel_meta, as upstream);
  "soc_version":     the SoC (default: sk.engine.platforms.DEFAULT_SOC);
  "base_dir":        what relative paths in kernel_infos resolve against (default: cwd).

What it does not do, unlike upstream: run bisheng/ld.lld (no compiler here; the
build rules compile and link from the plan), reuse a cached `<name>.o`, read the
SoC from the process environment, or fill sha256 (there is no binary yet).
"""

from __future__ import annotations

import os

from sk.render.outputs import write_outputs
from sk.engine.platforms import DEFAULT_SOC, get_platform
from sk.engine.plan import build_plan
from sk.engine.subop import kernel_infos_from_dict


def compile(kernel_infos, kernel_name="ascendc_super_kernel_plus", compile_infos=None) -> dict:  # noqa: A001
    """Generate the SuperKernel sources; returns {"source"|"kernel_json"|"compile_options"|"plan": path}."""
    infos = dict(compile_infos or {})
    base_dir = infos.get("base_dir") or os.getcwd()
    out_dir = infos.get("kernel_meta_dir") or os.path.join(os.getcwd(), "kernel_meta")
    platform = get_platform(infos.get("soc_version") or DEFAULT_SOC)
    ki = kernel_infos_from_dict(kernel_infos, base_dir, kernel_name=kernel_name, platform=platform)
    plan = build_plan(ki, platform)
    return write_outputs(plan, out_dir, os.path.join(out_dir, f"{plan.kernel_name}.plan.json"))
