"""Kernel faults on the twin end the launch with an error that names them; the process lives on.

A fatal signal in a worker (SIGSEGV, SIGILL, SIGFPE, a stack overflow) is a
kernel error naming the kernel, sub-kernel, core side and block; a worker that
loops without progress is a hang, taken back so the launch's threads are
joined; GM is guarded, so a write before or past a tensor names the tensor
and offset. All launches run in this one process, one after another: each
must leave the runtime able to run the next.
"""

import os
import time

import pytest

from sk.twin import binding as twin

KERNELS = r"""
#include "kernel_operator.h"
#define BLOCK(b) if (AscendC::GetBlockIdx() == (b))
extern "C" __global__ __aicore__ void null_write(GM_ADDR y) { BLOCK(2) *(volatile int*)nullptr = 1; }
extern "C" __global__ __aicore__ void write_before(GM_ADDR y) { BLOCK(1) ((__gm__ float*)y)[-5] = 1.0f; }
extern "C" __global__ __aicore__ void write_after(GM_ADDR y) { BLOCK(3) ((__gm__ float*)y)[1024] = 1.0f; }
extern "C" __global__ __aicore__ void write_far_after(GM_ADDR y) { BLOCK(3) ((__gm__ float*)y)[1724] = 1.0f; }
extern "C" __global__ __aicore__ void write_near_before(GM_ADDR y) { BLOCK(0) ((__gm__ float*)y)[-3] = 7.0f; }
static int recurse(volatile int n) { volatile char pad[512]; pad[0] = (char)n; return recurse(n + 1) + pad[0]; }
extern "C" __global__ __aicore__ void stack_overflow(GM_ADDR y) { BLOCK(0) ((__gm__ int*)y)[0] = recurse(0); }
extern "C" __global__ __aicore__ void endless(GM_ADDR y) { BLOCK(1) { volatile int x = 0; while (true) { x = x + 1; } } }
extern "C" __global__ __aicore__ void divide_by_zero(GM_ADDR y) {
    volatile int z = (int)AscendC::GetBlockIdx() - 2;
    ((__gm__ int*)y)[0] = 5 / z;
}
extern "C" __global__ __aicore__ void trap(GM_ADDR y) { BLOCK(1) __builtin_trap(); }
extern "C" __global__ __aicore__ void in_sub_kernel(GM_ADDR y) {
    sk_twin_trace_begin("crashy_sub");
    BLOCK(1) *(volatile int*)nullptr = 1;
    sk_twin_trace_end();
}
extern "C" __global__ __aicore__ void write_at(GM_ADDR y, GM_ADDR offset) {
    BLOCK(2) ((__gm__ uint8_t*)y)[(int64_t)(uintptr_t)offset] = 1;  // the offset itself is the argument
}
extern "C" __global__ __aicore__ void good(GM_ADDR y) { ((__gm__ float*)y)[AscendC::GetBlockIdx()] = 2.0f; }
"""


@pytest.fixture(scope="module")
def kernels(runtime, tmp_path_factory):
    d = tmp_path_factory.mktemp("faults")
    (d / "k.cpp").write_text(KERNELS)
    lib = twin.build_kernel_library([d / "k.cpp"], d / "k.so")
    return runtime.load_kernels(lib)


def _launch(runtime, kernels, name, buf, timeout_ms=1000):
    spec = twin.LaunchSpec(name=name, entry=runtime.symbol(kernels, name), block_dim=4, ration="0:1",
                           params=[buf.address], num_args=1, timeout_ms=timeout_ms)
    start = time.monotonic()
    result = runtime.launch(spec, check=False)
    return result, time.monotonic() - start


@pytest.mark.parametrize("name, buf_size, words", [
    ("null_write", 4096, ["AIV 2 (block 2)", "SIGSEGV", "write", "null pointer"]),
    ("write_before", 4096, ["AIV 1 (block 1)", "offset -20 of GM tensor 'y' (4096 bytes)", "before its start"]),
    ("write_after", 4096, ["AIV 3 (block 3)", "offset 4096 of GM tensor 'y' (4096 bytes)", "1 byte past its end"]),
    ("write_far_after", 400, ["AIV 3 (block 3)", "GM tensor 'y' (400 bytes)", "past its end"]),
    ("stack_overflow", 4096, ["AIV 0 (block 0)", "stack overflow", "KiB is used up"]),
    ("divide_by_zero", 4096, ["AIV 2 (block 2)", "SIGFPE, integer division by zero"]),
    ("trap", 4096, ["AIV 1 (block 1)", "SIGILL"]),
    ("in_sub_kernel", 4096, ["(sub-kernel crashy_sub) on AIV 1 (block 1)", "SIGSEGV"]),
])
def test_a_fatal_signal_is_a_kernel_error_naming_the_block(runtime, kernels, name, buf_size, words):
    y = runtime.alloc(buf_size, "y")
    try:
        result, _ = _launch(runtime, kernels, name, y)
        assert result.status == 2, result
        assert result.error.startswith(f"kernel '{name}'"), result.error
        for word in words:
            assert word in result.error, (word, result.error)
        # The runtime goes on: the next launch runs and its writes land.
        result, _ = _launch(runtime, kernels, "good", y)
        assert result.ok, result.error
        assert y.read(0, 4) == b"\x00\x00\x00\x40"
    finally:
        y.free()


def test_a_write_past_the_end_of_one_tensor_into_the_next_names_both(runtime, kernels):
    """A write that skips a tensor's back guard page and lands in the front guard page of the tensor
    mapped above it is past the end of the one as much as before the start of the other."""
    # A tensor of 4096 bytes is mapped as guard page, data page, guard page: find two mapped side by side.
    page = os.sysconf("SC_PAGE_SIZE")
    bufs = [runtime.alloc(4096, "t%d" % i) for i in range(32)]
    try:
        by_address = {t.address: i for i, t in enumerate(bufs)}
        pairs = [(i, by_address[t.address + 3 * page]) for i, t in enumerate(bufs) if t.address + 3 * page in by_address]
        assert pairs, "no two of 32 mappings side by side"
        low, up = pairs[0]
        far = bufs[up].address - 20 - bufs[low].address
        spec = twin.LaunchSpec(name="write_at", entry=runtime.symbol(kernels, "write_at"), block_dim=4,
                               ration="0:1", params=[bufs[low].address, far], num_args=2, timeout_ms=1000)
        result = runtime.launch(spec, check=False)
        assert result.status == 2, result
        assert (f"offset {far} of GM tensor 't{low}' (4096 bytes), {far - 4095} bytes past its end, "
                f"and offset -20 of GM tensor 't{up}' (4096 bytes), 20 bytes before its start: "
                f"after the end of 't{low}', before 't{up}'") in result.error, result.error
        assert "AIV 2 (block 2)" in result.error, result.error
    finally:
        for t in bufs:
            t.free()


def test_a_write_beside_a_tensor_is_found_after_the_launch(runtime, kernels):
    """400 bytes: the tensor ends 112 bytes before the guard page; a write of [-3] lands in the
    guard bytes, which the launch checks when it ends (the block is not known then)."""
    y = runtime.alloc(400, "small")
    try:
        result, _ = _launch(runtime, kernels, "write_near_before", y)
        assert result.status == 2, result
        assert "GM tensor 'small' (400 bytes) written at offsets -12..-9 (before its start)" in result.error
        assert "block is not known" in result.error
        result, _ = _launch(runtime, kernels, "good", y)
        assert result.ok, result.error  # the guard bytes were restored
    finally:
        y.free()


def test_an_endless_loop_without_waiters_is_a_hang_in_bounded_time(runtime, kernels):
    y = runtime.alloc(4096, "y")
    try:
        result, took = _launch(runtime, kernels, "endless", y, timeout_ms=500)
        assert result.status == 4, result
        assert "kernel 'endless'" in result.error and "never returned" in result.error
        assert "Still running kernel code (an endless loop?): AIV 1." in result.error
        assert "detached" not in result.error  # the looping worker was taken back and joined
        assert took < 5, took
        result, _ = _launch(runtime, kernels, "good", y)
        assert result.ok, result.error
    finally:
        y.free()


@pytest.mark.parametrize("value", ["18446744073710", "0", "-1", "12ms", " 5", "4294967296"])
def test_the_timeout_from_the_environment_is_range_checked(runtime, kernels, monkeypatch, value):
    monkeypatch.setenv("SK_TWIN_TIMEOUT_MS", value)
    y = runtime.alloc(64, "y")
    try:
        result, _ = _launch(runtime, kernels, "good", y, timeout_ms=0)
        assert result.status == 3, result
        assert f"SK_TWIN_TIMEOUT_MS='{value}'" in result.error
        assert "from 1 to 4294967295" in result.error
    finally:
        y.free()


def test_the_launch_limit_from_the_environment_is_range_checked(runtime, kernels, monkeypatch):
    monkeypatch.setenv("SK_TWIN_LAUNCH_TIMEOUT_MS", "99999999999999999999999")
    y = runtime.alloc(64, "y")
    try:
        result, _ = _launch(runtime, kernels, "good", y)
        assert result.status == 3 and "SK_TWIN_LAUNCH_TIMEOUT_MS='9999" in result.error, result
    finally:
        y.free()
