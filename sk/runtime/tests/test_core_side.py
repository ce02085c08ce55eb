"""A unit compiled for one core side knows its side at compile time, as on the device.

Ascend C's sys_macros.h makes ASCEND_IS_AIC/AIV `constexpr` where the arch
says the side (__DAV_CUBE__ / __DAV_VEC__ on a 2201 part), so the generated
SuperKernel entry's `if ASCEND_IS_AIV {...}` is dropped from the cube half.
The twin does the same: each half of a 1,200-sub-kernel entry compiles in
half the time and calls only its side's sub-kernels. A unit compiled for both
sides (the twin's one object per MIX kernel) still asks the worker.
"""

import subprocess

import pytest

from sk.binfmt import objfacts
from sk.toolflow import toolargv
from sk.twin import binding as twin

UNIT = """#include "kernel_operator.h"
extern "C" __aicore__ void cube_only(uint64_t);
extern "C" __aicore__ void vec_only(uint64_t);
extern "C" __global__ __aicore__ void entry(void) {
    if ASCEND_IS_AIC {
        cube_only(0);
    }
    if ASCEND_IS_AIV {
        vec_only(1);
    }
    if (ASCEND_IS_NOT_AIV) {
        cube_only(2);
    }
}
"""


def _compile(tmp_path, arch, body=UNIT):
    src = tmp_path / f"{arch or 'both'}.cpp"
    src.write_text(body)
    out = tmp_path / f"{arch or 'both'}.o"
    tools = toolargv.Tools("host", compiler=twin.compiler())
    # The entry halves' own argv (HOST_ENTRY_OPT, -O0), where dead code is dropped only if the condition is constant.
    argv = toolargv.entry_compile_argv(tools, str(src), str(out), arch=arch, include_dirs=[str(twin.INCLUDE_DIR)])
    res = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert res.returncode == 0, res.stdout
    return {s.name for s in objfacts.read_object(str(out)).undefined()}


@pytest.mark.parametrize("arch, calls", [("cube", {"cube_only"}), ("vec", {"vec_only"})])
def test_a_one_side_unit_keeps_only_its_sides_calls(tmp_path, arch, calls):
    undefined = _compile(tmp_path, arch)
    assert undefined & {"cube_only", "vec_only", "sk_twin_core_type"} == calls


def test_a_unit_for_both_sides_asks_the_worker(tmp_path):
    undefined = _compile(tmp_path, None)
    assert {"cube_only", "vec_only", "sk_twin_core_type"} <= undefined


@pytest.mark.parametrize("arch, holds", [("cube", "ASCEND_IS_AIC && ASCEND_IS_NOT_AIV"),
                                         ("vec", "ASCEND_IS_AIV && ASCEND_IS_NOT_AIC")])
def test_the_side_is_a_constant_expression(tmp_path, arch, holds):
    _compile(tmp_path, arch, f'#include "kernel_operator.h"\nstatic_assert({holds}, "side");\n')
