"""sk.twin.binding: building the runtime, launching kernels through ctypes, errors,
sequences and Chrome traces."""

import json
import struct
import subprocess

import pytest

from sk.toolflow import toolargv
from sk.cli import main as cli
from sk.twin import binding as twin
from sk.base.errors import SkError

KERNELS = r"""
#include "kernel_operator.h"

extern "C" __global__ __aicore__ void add_kernel(GM_ADDR x, GM_ADDR y, GM_ADDR z) {
  int64_t per = 64 / AscendC::GetBlockNum();
  int64_t begin = AscendC::GetBlockIdx() * per;
  for (int64_t i = begin; i < begin + per; ++i) {
    reinterpret_cast<float*>(z)[i] = reinterpret_cast<float*>(x)[i] + reinterpret_cast<float*>(y)[i];
  }
}

// Every AIV but the last reaches a barrier the last never does.
extern "C" __global__ __aicore__ void stuck_kernel(void) {
  if (AscendC::GetBlockIdx() + 1 < AscendC::GetBlockNum()) AscendC::SyncAll<true>();
}

extern "C" __global__ __aicore__ void traced_sk(void) {
  sk_twin_trace_begin("sub_a");
  AscendC::SyncAll<true>();
  sk_twin_trace_end();
}
"""


@pytest.fixture(scope="module")
def kernels(twin_runtime, tmp_path_factory):
    src = tmp_path_factory.mktemp("kernels") / "kernels.cc"
    src.write_text(KERNELS)
    return twin_runtime.load_kernels(twin.build_kernel_library([src], src.with_suffix(".so")))


def floats(buf, n=64):
    return list(struct.unpack(f"<{n}f", buf.read(0, 4 * n)))


def add_spec(twin_runtime, kernels, x, y, z, **kw):
    return twin.LaunchSpec(name="add_kernel", entry=twin_runtime.symbol(kernels, "add_kernel"), block_dim=8,
                           ration="0:1", params=[x, y, z], num_args=3, **kw)


def test_build_runtime_reuses_an_up_to_date_build(tmp_path):
    lib = twin.build_runtime(twin.default_build_dir())
    before = lib.stat().st_mtime_ns
    assert twin.build_runtime(twin.default_build_dir()) == lib
    assert lib.stat().st_mtime_ns == before
    assert lib.with_suffix(".so.stamp").read_text()


def test_launch_ordinary_entry(twin_runtime, kernels):
    x, y, z = twin_runtime.alloc(256), twin_runtime.alloc(256), twin_runtime.alloc(256)
    x.write(struct.pack("<64f", *range(64)))
    y.write(struct.pack("<64f", *[0.25] * 64))
    result = twin_runtime.launch(add_spec(twin_runtime, kernels, x, y, z))
    assert result.ok and result.error == "" and result.residual == ""
    assert floats(z) == [i + 0.25 for i in range(64)]
    assert result.wall_ns > 0
    assert result.workers == [f"AIV {b}" for b in range(8)]
    assert set(result.counters) == set(twin_runtime.counter_names)
    assert "sync_all_aiv" in result.counters


def test_sequence_and_chrome_trace(twin_runtime, kernels):
    x, y, z = twin_runtime.alloc(256), twin_runtime.alloc(256), twin_runtime.alloc(256)
    x.write(struct.pack("<64f", *[1.0] * 64))
    specs = [add_spec(twin_runtime, kernels, x, y, z, trace=True),
             twin.LaunchSpec(name="traced_sk", entry=twin_runtime.symbol(kernels, "traced_sk"), block_dim=2,
                             ration="1:2", params=[0], trace=True)]
    results = twin_runtime.run_sequence(specs)
    assert [r.name for r in results] == ["add_kernel", "traced_sk"]
    assert results[1].counters["sync_all_aiv"] == 6  # on AICs it is their mode-0 barrier
    assert results[0].start_ns + results[0].wall_ns <= results[1].start_ns
    trace = twin.chrome_trace(results)
    json.dumps(trace)
    events = trace["traceEvents"]
    names = {e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
    assert {"AIV 0", "AIC 1", "AIV 1.1"} <= names
    spans = [e for e in events if e["ph"] == "X"]
    assert sum(1 for e in spans if e["cat"] == "kernel" and e["pid"] == 0) == 8
    assert sum(1 for e in spans if e["name"] == "sub_a") == 6
    assert all(e["ts"] >= 0 and e["dur"] >= 0 for e in spans)


def test_deadlock_is_an_sk_error_with_the_runtime_message(twin_runtime, kernels):
    spec = twin.LaunchSpec(name="stuck_kernel", entry=twin_runtime.symbol(kernels, "stuck_kernel"), block_dim=4,
                           ration="0:1", params=[0], timeout_ms=200)
    with pytest.raises(SkError) as info:
        twin_runtime.launch(spec)
    text = str(info.value)
    assert text.startswith("Kernel stuck_kernel: twin launch failed (deadlock)")
    assert "AIV 0-2 at wait_flag_dev(14 SYNC_AIV_ONLY_ALL) in SyncAll<true>" in text
    assert "Never arrived: AIV 3 (finished the kernel)" in text
    result = twin_runtime.launch(spec, check=False)
    assert result.status == 1 and not result.ok


def test_bad_input_is_an_sk_error(twin_runtime, kernels):
    with pytest.raises(SkError, match=r"ration: unsupported task ration \(got '2:1'\)"):
        twin_runtime.launch(twin.LaunchSpec(name="k", entry=twin_runtime.symbol(kernels, "traced_sk"), block_dim=1, ration="2:1"))
    with pytest.raises(SkError, match="kernel symbol not found"):
        twin_runtime.symbol(kernels, "no_such_kernel")
    buf = twin_runtime.alloc(16)
    with pytest.raises(SkError, match="GM access out of range"):
        buf.write(b"x" * 17)
    with pytest.raises(SkError, match="the entry takes 3 arguments but only 1 params"):
        twin_runtime.launch(twin.LaunchSpec(name="add", entry=twin_runtime.symbol(kernels, "add_kernel"), block_dim=1,
                                  ration="0:1", params=[0], num_args=3))


def test_one_runtime_per_process(twin_runtime, tmp_path):
    other = tmp_path / "libskrt.so"
    other.write_bytes(b"")
    with pytest.raises(SkError, match="a different twin runtime is already loaded"):
        twin.Twin(other)


def test_kernel_cflags_point_at_the_runtime_headers():
    flags = twin.kernel_cflags()
    assert f"-I{twin.INCLUDE_DIR}" in flags and "-D__CCE_KT_TEST__=1" in flags
    assert (twin.INCLUDE_DIR / "kernel_operator.h").exists()
    assert "-fsanitize=thread" in twin.kernel_cflags(tsan=True)


def test_sk_twin_lib_links_a_library_the_twin_runs(twin_runtime, host_tools, tmp_path):
    # The step Bazel's SkTwinLib runs: an object from the twin's compile, linked by `sk twin lib`.
    (tmp_path / "k.cc").write_text(KERNELS)
    obj, lib = tmp_path / "k.o", tmp_path / "lib" / "k.so"
    subprocess.run(toolargv.twin_compile_argv(twin.compiler(), str(tmp_path / "k.cc"), str(obj),
                                              include_dir=str(twin.INCLUDE_DIR)), check=True)
    assert cli.main(["twin", "lib", "--toolchain", "host", "--compiler", twin.compiler(), "--ld", host_tools["ld"],
                     "--obj", str(obj), "-o", str(lib)]) == 0
    assert [p.name for p in lib.parent.iterdir()] == ["k.so"]  # no temporary left beside it
    kernels = twin_runtime.load_kernels(lib)
    x, y, z = twin_runtime.alloc(256), twin_runtime.alloc(256), twin_runtime.alloc(256)
    x.write(struct.pack("<64f", *range(64)))
    y.write(struct.pack("<64f", *[0.5] * 64))
    assert twin_runtime.launch(add_spec(twin_runtime, kernels, x, y, z)).ok
    assert floats(z) == [i + 0.5 for i in range(64)]


def test_sk_twin_lib_refuses_the_cann_toolchain(tmp_path, capsys):
    (tmp_path / "a.o").write_bytes(b"")  # the object passes its gate; the toolchain is what is refused
    assert cli.main(["twin", "lib", "--toolchain", "cann", "--compiler", "bisheng", "--obj", str(tmp_path / "a.o"),
                     "-o", str(tmp_path / "k.so")]) == 2
    assert "twin libraries are built with the host toolchain" in capsys.readouterr().err
