"""Fuzzing the three readers of user input: every generated input is accepted or rejected with SkError.

  * the option-string parser (sk.engine.options.parse_options), on free text and on
    key=value strings built from the real option names;
  * the kernel_infos / sub-op JSON loader plus the planner (sk.engine.subop, sk.engine.plan),
    on mutations of a valid fusion input (fields dropped, retyped, replaced,
    added; JSON text cut or spliced);
  * the ELF and ar readers (sk.binfmt.ar, sk.binfmt.elf, sk.binfmt.objfacts), on mutated bytes of
    real objects and archives built here with gcc/as/ar.

  * (issue 24) numbers at and past the edges of upstream's integer types, 5,000-digit
    numbers and nesting past the limit in that JSON; special files (FIFOs, devices,
    directories) as any of sk gen's input paths; and faulting kernels on the twin
    (crashes, traps, stack overflows, endless loops, writes at any offset around a
    tensor), each launch ending in bounded time with an error naming the kernel and block;
    and faulting tiling functions (the same faults, aborts, exceptions, failures, tiling
    keys and block dims at and past their ranges), in a launch's tiling task and called
    alone, each ending in bounded time with an error naming the task and function.

Any other exception is a bug (sk would print "internal error" and exit 1).
The normal run is bounded (FUZZ_EXAMPLES per test, derandomised so a run
is repeatable); the long run is

    SK_FUZZ_EXAMPLES=10000 SK_FUZZ_SEED=<n> python -m pytest tests/bad_inputs/test_fuzz.py -q

(SK_FUZZ_SEED unset in a long run: a fresh random seed, printed by hypothesis on failure).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time

import pytest
from hypothesis import HealthCheck, event, given, seed, settings
from hypothesis.control import currently_in_test_context
from hypothesis import strategies as st

from badinputs import fusion, make_object
from sk.binfmt import ar, objfacts
from sk.base.errors import SkError
from sk.engine.options import KNOWN_OPTIONS, parse_options

FUZZ_EXAMPLES = int(os.environ.get("SK_FUZZ_EXAMPLES", "150"))
_LONG = "SK_FUZZ_EXAMPLES" in os.environ
FUZZ = settings(max_examples=FUZZ_EXAMPLES, deadline=None, database=None, derandomize=not _LONG,
                suppress_health_check=list(HealthCheck))


def _seeded(fn):
    if os.environ.get("SK_FUZZ_SEED"):
        return seed(int(os.environ["SK_FUZZ_SEED"]))(fn)
    return fn


def accepts_or_sk_error(call, *args):
    """The contract: a result or SkError (whose paragraph must render); anything else fails the test."""
    try:
        result = call(*args)
    except SkError as err:
        assert err.paragraph()
        _event(f"rejected: {err.what[:40]}")
        return None
    _event("accepted")
    return result


def _event(text):
    """Outcome statistics (pytest --hypothesis-show-statistics), to see how deep the inputs get."""
    if currently_in_test_context():
        event(text)


# ---------------------------------------------------------------- options

_VALUES = st.one_of(
    st.sampled_from(["0", "1", "2", "4", "64", "65", "512", "3", "-1", "max", "none", "per-func", "bypass", "abort",
                     "", " ", "1,2", ",", "-g,-O2", "9" * 30, "9" * 5000, "0x10", "1e3", "\u0663", "\u00b2"]),
    st.text(max_size=12),
)
_PAIR = st.tuples(st.one_of(st.sampled_from(KNOWN_OPTIONS), st.text(max_size=8)), st.sampled_from(["=", "", "=="]),
                  _VALUES).map(lambda t: "".join(t))


@_seeded
@FUZZ
@given(st.one_of(st.text(max_size=80), st.lists(_PAIR, max_size=6).map(":".join),
                 st.lists(_PAIR, max_size=4).map(lambda parts: '"' + ":".join(parts) + '"')))
def test_fuzz_option_strings(text):
    opts = accepts_or_sk_error(parse_options, text)
    if opts is not None:
        json.dumps(opts.to_json())  # an accepted string must normalise


# ---------------------------------------------------------------- kernel_infos and sub-op JSON

@pytest.fixture(scope="module")
def valid_fusion(tmp_path_factory):
    root = tmp_path_factory.mktemp("fuzz-fusion")
    ki = fusion(root, ops=[
        ("a", {}, {"send_event_list": [100]}),
        ("b", {"kernel_type": "KERNEL_TYPE_MIX_AIC_1_2", "block_dim": 4}, {"stream_id": 1, "recv_event_list": [100]}),
        ("c", {"kernel_type": "KERNEL_TYPE_AIV_ONLY", "sub_op_with_sync_all": True}, {}),
    ], options="stream-fusion=1:feed-sync-all=1:allow-mix-1-2-in-1-1=1")   # b is 1:2 in a 1:1 SK
    docs = {}
    for name in ("kernel_infos", "a", "b", "c"):
        with open(os.path.join(root, f"{name}.json")) as f:
            docs[name] = json.load(f)
    return str(root), docs


# The edges of upstream's integer types (issue 24): at each edge and one past it.
_EDGES = [v + d for edge in (2 ** 31, 2 ** 32, 2 ** 63, 2 ** 64) for v in (edge, -edge) for d in (-1, 0)] + [10 ** 40]
_JSON_LEAF = st.one_of(st.none(), st.booleans(), st.integers(-2 ** 70, 2 ** 70), st.sampled_from(_EDGES),
                       st.floats(allow_nan=False), st.text(max_size=10),
                       st.sampled_from(["KERNEL_TYPE_AIV_ONLY", "KERNEL_TYPE_MIX_AIC_1_2", "dynamic", "normal",
                                        "a.o", "a.json", "a__kernel0_middle", "x\u0000y", "../a.o", "/"]))
_JSON = st.recursive(_JSON_LEAF, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                         st.dictionaries(st.text(max_size=6), inner, max_size=4)),
                     max_leaves=8)


def _paths(node, prefix=()):
    """Every (path, value) in a JSON document, the root included."""
    yield prefix, node
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _paths(v, prefix + (i,))


@st.composite
def _mutated(draw, doc):
    doc = json.loads(json.dumps(doc))
    for _ in range(draw(st.integers(1, 3))):
        paths = list(_paths(doc))
        path, node = paths[draw(st.integers(0, len(paths) - 1))]
        action = draw(st.sampled_from(["replace", "drop", "add", "dup_list_item", "swap_type"]))
        parent = doc
        for key in path[:-1]:
            parent = parent[key]
        if action == "replace" and path:
            parent[path[-1]] = draw(_JSON)
        elif action == "drop" and path:
            del parent[path[-1]]
        elif action == "add" and isinstance(node, dict):
            node[draw(st.sampled_from(["kernelName", "blockDim", "split_mode", "tensors", "task_type", "x",
                                       "dynamic_func_names", "stream_id", "recv_event_list"]))] = draw(_JSON)
        elif action == "dup_list_item" and isinstance(node, list) and node:
            node.append(json.loads(json.dumps(node[draw(st.integers(0, len(node) - 1))])))
        elif action == "swap_type" and path:
            value = parent[path[-1]]
            parent[path[-1]] = ([value] if not isinstance(value, list) else (str(value) if value else {}))
        elif not path:
            doc = draw(_JSON)
    return doc


def _plan(root, ki_path):
    from sk.engine.plan import build_plan
    from sk.engine.platforms import get_platform
    from sk.engine.subop import load_kernel_infos

    build_plan(load_kernel_infos(ki_path), get_platform())


@_seeded
@FUZZ
@given(data=st.data())
def test_fuzz_kernel_infos_and_sub_op_json(valid_fusion, data):
    root, docs = valid_fusion
    which = data.draw(st.sampled_from(sorted(docs)))
    mutated = data.draw(_mutated(docs[which]))
    text = json.dumps(mutated)
    if data.draw(st.integers(0, 3)) == 0:  # sometimes damage the text too: cut it, splice in a duplicate key,
        cut = data.draw(st.integers(0, len(text)))  # a number of 5,000 digits or nesting past the limit
        text = data.draw(st.sampled_from([text[:cut], text[:cut] + text, text.replace("{", '{"k": 1, "k": 2, ', 1),
                                          text.replace("0", "9" * 5000, 1),
                                          text.replace("[", "[" * 150, 1).replace("]", "]" * 150, 1)]))
    with tempfile.TemporaryDirectory(dir=root) as work:
        for name, doc in docs.items():
            with open(os.path.join(work, f"{name}.json"), "w") as f:
                f.write(text if name == which else json.dumps(doc))
        for obj in os.listdir(root):
            if obj.endswith(".o"):
                os.symlink(os.path.join(root, obj), os.path.join(work, obj))
        accepts_or_sk_error(_plan, work, os.path.join(work, "kernel_infos.json"))


# ---------------------------------------------------------------- ELF objects and archives

@pytest.fixture(scope="module")
def real_objects(tmp_path_factory):
    """Real relocatables (gcc and as), 32- and 64-bit, and GNU archives with long member names."""
    root = tmp_path_factory.mktemp("fuzz-elf")
    blobs = []
    src = root / "k.c"
    src.write_text("static int helper(int x) { return x * 3; }\n"
                   "int table[4] = {1, 2, 3, 4};\n"
                   "int k_entry_middle(int x) { return helper(x) + table[x & 3]; }\n"
                   "extern int missing(int);\n"
                   "int k_entry_middle_split1(int x) { return missing(x); }\n")
    gcc = shutil.which("gcc")
    if gcc:
        subprocess.run([gcc, "-c", "-O1", "-ffunction-sections", "-g", "-o", str(root / "gcc.o"), str(src)],
                       check=True)
        blobs.append(("gcc.o", (root / "gcc.o").read_bytes()))
    make_object(root / "as.o", ["a__kernel0_middle", "other"], 64)
    blobs.append(("as.o", (root / "as.o").read_bytes()))
    (root / "s32.s").write_text(".text\n.globl f\n.type f, @function\nf: ret\n")
    subprocess.run(["as", "--32", "-o", str(root / "s32.o"), str(root / "s32.s")], check=True)
    blobs.append(("s32.o", (root / "s32.o").read_bytes()))
    members = [str(root / "as.o")] + ([str(root / "gcc.o")] if gcc else [])
    long_name = root / "a_member_with_a_long_name_split1.o"
    shutil.copy(root / "as.o", long_name)
    subprocess.run(["ar", "rcs", str(root / "lib.a"), *members, str(long_name)], check=True)
    blobs.append(("lib.a", (root / "lib.a").read_bytes()))
    blobs.append(("ours.a", ar.pack([("a_member_with_a_long_name.o", blobs[0][1]), ("b.o", blobs[-2][1])])))
    return str(root), blobs


@st.composite
def _mutated_bytes(draw, blobs):
    name, data = blobs[draw(st.integers(0, len(blobs) - 1))]
    data = bytearray(data)
    for _ in range(draw(st.sampled_from([1, 1, 1, 2, 2, 3, 8]))):
        kind = draw(st.sampled_from(["flip", "byte", "word", "cut", "insert", "header", "ar_field"]))
        if not data:
            break
        pos = draw(st.integers(0, len(data) - 1))
        if kind == "flip":
            data[pos] ^= 1 << draw(st.integers(0, 7))
        elif kind == "byte":
            data[pos] = draw(st.integers(0, 255))
        elif kind == "word":  # a field of a header: offsets, sizes, counts, indices
            value = draw(st.sampled_from([0, 1, 0xFFFF, 0xFFFFFFFF, 2 ** 63, 2 ** 64 - 1, len(data), len(data) + 1]))
            width = draw(st.sampled_from([2, 4, 8]))
            data[pos:pos + width] = (value % (1 << (8 * width))).to_bytes(width, "little")
        elif kind == "cut":
            del data[pos:]
        elif kind == "insert":
            data[pos:pos] = draw(st.binary(min_size=1, max_size=16))
        elif kind == "ar_field" and data.startswith(b"!<arch>\n"):
            # ar member headers are text: a size or a name field gets another decimal-looking text
            starts = [m for m in range(8, len(data) - 60) if data[m + 58:m + 60] == b"`\n"][:8]
            if starts:
                at = draw(st.sampled_from(starts))
                field, width = draw(st.sampled_from([(48, 10), (0, 16)]))
                text = draw(st.sampled_from([b"-60", b"+4", b"1_0", b"", b"99999999999", b"#1/zz", b"#1/999",
                                             b"/99999", b"/", b"//", b"0"]))
                data[at + field:at + field + width] = text.ljust(width)[:width]
        elif kind == "header":  # the ELF header and ar member headers are where the structure lives
            pos = draw(st.integers(0, min(len(data) - 1, 130)))
            data[pos] = draw(st.integers(0, 255))
    return name, bytes(data)


def _engine_read(data, name):
    """What `sk gen` asks of a sub-kernel object (symbols decode on first use)."""
    info = objfacts.object_info(data, name, sub_kernel=True)
    return info.defined_functions, info.defined_symbols, info.text_size


def _linker_read(info):
    return info.defined_globals(), info.undefined(), info.symbols, info.exec_size, info.group_count


def _read_all(path, name, data):
    if ar.is_archive(data):
        names = ar.member_names(path)
        members = ar.members(data, name)
        assert [m for m, _ in members] == names  # the header-only walk agrees with the full one
        for member, body in ar.by_name(members).items():
            accepts_or_sk_error(_engine_read, body, member)
        accepts_or_sk_error(objfacts.archive_facts, data, name)
        for obj in objfacts.read_archive(path):
            _linker_read(obj)
    else:
        _engine_read(data, name)
        _linker_read(objfacts.read_object(path))


@_seeded
@FUZZ
@given(data=st.data())
def test_fuzz_elf_and_archive_bytes(real_objects, data):
    root, blobs = real_objects
    name, blob = data.draw(_mutated_bytes(blobs))
    fd, path = tempfile.mkstemp(dir=root, suffix="-" + name)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(blob)
        accepts_or_sk_error(_read_all, path, name, blob)
    finally:
        os.unlink(path)


def test_fuzz_fixtures_are_valid(real_objects, valid_fusion):
    """The seeds themselves parse: the fuzzers mutate real inputs, not garbage."""
    root, blobs = real_objects
    for name, data in blobs:
        if name == "s32.o":  # the ELF32 seed is rejected by design
            with pytest.raises(SkError, match="wrong ELF class"):
                _engine_read(data, name)
            continue
        path = os.path.join(root, "seed-" + name)
        with open(path, "wb") as f:
            f.write(data)
        _read_all(path, name, data)
    froot, _ = valid_fusion
    _plan(froot, os.path.join(froot, "kernel_infos.json"))


# ---------------------------------------------------------------- paths that are not regular files

_SPECIAL = ["/dev/zero", "/dev/null", "/dev/urandom", "/proc/self/status", "/proc/self/mem", "/", "fifo", "dir",
            "link_to_fifo", "link_to_dir"]


@_seeded
@FUZZ
@given(data=st.data())
def test_fuzz_inputs_that_are_not_regular_files(valid_fusion, data):
    """Any input path of sk gen (kernel_infos, a sub-op JSON, an object) naming a special file is read
    without blocking or growing, and accepted or refused with SkError."""
    root, docs = valid_fusion
    with tempfile.TemporaryDirectory(dir=root) as work:
        os.mkfifo(os.path.join(work, "fifo"))
        os.mkdir(os.path.join(work, "dir"))
        os.symlink(os.path.join(work, "fifo"), os.path.join(work, "link_to_fifo"))
        os.symlink(os.path.join(work, "dir"), os.path.join(work, "link_to_dir"))
        special = data.draw(st.sampled_from(_SPECIAL))
        special = special if special.startswith("/") else os.path.join(work, special)
        ki = json.loads(json.dumps(docs["kernel_infos"]))
        target = data.draw(st.sampled_from(["kernel_infos", "json_path", "bin_path"]))
        if target != "kernel_infos":
            ki["op_list"][data.draw(st.integers(0, len(ki["op_list"]) - 1))][target] = special
        for name, doc in docs.items():
            with open(os.path.join(work, f"{name}.json"), "w") as f:
                json.dump(ki if name == "kernel_infos" else doc, f)
        for obj in os.listdir(root):
            if obj.endswith(".o"):
                os.symlink(os.path.join(root, obj), os.path.join(work, obj))
        event(f"{target} -> {os.path.basename(special) or special}")
        path = special if target == "kernel_infos" else os.path.join(work, "kernel_infos.json")
        result = accepts_or_sk_error(_plan, work, path)
        assert result is None  # never planned: each special path is refused


# ---------------------------------------------------------------- faulting kernels on the twin

FAULTY = r"""
#include "kernel_operator.h"
static int deeper(volatile int n) { volatile char pad[256]; pad[0] = (char)n; return deeper(n + 1) + pad[0]; }
// ctl: kind, block, offset (elements of y). kind 0: y[offset] = 1; 1: null write; 2: division by zero;
// 3: trap; 4: stack overflow; 5: endless loop.
extern "C" __global__ __aicore__ void faulty(GM_ADDR y, GM_ADDR ctl) {
    const int64_t* c = (const int64_t*)ctl;
    if ((int64_t)AscendC::GetBlockIdx() != c[1]) return;
    volatile int64_t zero = 0;
    switch (c[0]) {
        case 0: ((__gm__ float*)y)[c[2]] = 1.0f; break;
        case 1: *(volatile int*)nullptr = 1; break;
        case 2: ((__gm__ int*)y)[0] = (int)(7 / zero); break;
        case 3: __builtin_trap();
        case 4: ((__gm__ int*)y)[0] = deeper(0); break;
        default: { volatile int k = 0; while (true) { k = k + 1; } }
    }
}
"""


@pytest.fixture(scope="module")
def faulty_kernel(tmp_path_factory):
    if shutil.which("g++") is None:
        pytest.skip("needs the host g++")
    from sk.twin import binding as twin

    d = tmp_path_factory.mktemp("faulty")
    (d / "faulty.cpp").write_text(FAULTY)
    runtime = twin.Twin(twin.build_runtime(twin.default_build_dir()))
    lib = runtime.load_kernels(twin.build_kernel_library([d / "faulty.cpp"], d / "faulty.so"))
    return runtime, runtime.symbol(lib, "faulty")


# Two tensors: 1,024 floats (a page: both ends against a guard page) and 100 (guard bytes on both sides).
# Offsets stay within the guard pages: further out is another mapping of this very process.
_SIZES = {1024: (-1024, 2047), 100: (-1920, 1151)}


@_seeded
@settings(max_examples=min(FUZZ_EXAMPLES, 60), deadline=None, database=None, derandomize=not _LONG,
          suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_fuzz_faulting_kernels_end_the_launch_naming_them(faulty_kernel, data):
    """A kernel that crashes, loops or writes beside its tensor ends its launch, in bounded time, with an
    error naming the kernel and the block (and the tensor and offset of a write); a write inside the
    tensor is fine; the twin runs the next launch."""
    from sk.twin import binding as twin

    runtime, entry = faulty_kernel
    n = data.draw(st.sampled_from(sorted(_SIZES)))
    kind = data.draw(st.sampled_from([0, 0, 0, 0, 1, 2, 3, 4, 5]))
    block = data.draw(st.integers(0, 3))
    low, high = _SIZES[n]
    offset = data.draw(st.one_of(st.integers(low, high), st.sampled_from([-1, 0, n - 1, n, n + 7, n + 8, low, high])))
    y, ctl = runtime.alloc(4 * n, "y"), runtime.alloc(24, "ctl")
    try:
        ctl.write(b"".join(v.to_bytes(8, "little", signed=True) for v in (kind, block, offset)))

        def launch():
            return runtime.launch(twin.LaunchSpec(name="faulty", entry=entry, block_dim=4, ration="0:1",
                                                  params=[y.address, ctl.address], num_args=2, timeout_ms=300),
                                  check=False)

        start = time.monotonic()
        result = launch()
        assert time.monotonic() - start < 10
        inside = kind == 0 and 0 <= offset < (4 * n + 31) // 32 * 8
        event("ok" if result.ok else f"status {result.status}")
        if inside:
            assert result.ok, result.error
        else:
            assert result.status in (2, 4), result
            assert "kernel 'faulty'" in result.error
            if "block is not known" not in result.error:
                assert f"AIV {block}" in result.error, result.error
            if kind == 0:
                assert "GM tensor 'y'" in result.error and "offset" in result.error, result.error
        ctl.write(bytes(24))  # kind 0 at offset 0 of block 0: a write inside the tensor
        assert launch().ok
    finally:
        y.free()
        ctl.free()


# ---------------------------------------------------------------- faulting tiling functions on the twin

FAULTY_TILING = r"""
#include <cstdlib>
#include <stdexcept>
#include "sk_tiling.h"
static int deeper(volatile int n) { volatile char pad[256]; pad[0] = (char)n; return n < 0 ? 0 : deeper(n + 1) + pad[0]; }
// input 0: kind, key, blocks. kind 0: chooses key and blocks; 1: null write; 2: division by zero; 3: trap;
// 4: stack overflow; 5: endless loop; 6: abort; 7: throws; 8: returns 3 (a tiling failure).
extern "C" int faulty_tiling(SkTilingContext* ctx) {
    const int64_t* c = ctx->Input<int64_t>(0);
    volatile int64_t zero = 0;
    switch (c[0]) {
        case 0: ctx->SetTilingKey((uint64_t)c[1]); ctx->SetBlockDim((uint32_t)c[2]); return 0;
        case 1: *(volatile int*)nullptr = 1; break;
        case 2: return (int)(7 / zero);
        case 3: __builtin_trap();
        case 4: return deeper(0);
        case 5: { volatile int k = 0; while (true) { k = k + 1; } }
        case 6: abort();
        case 7: throw std::runtime_error("bad rows");
        default: return 3;
    }
    return 0;
}
"""

WAITS_FOR_TILING = r"""
#include "kernel_operator.h"
extern "C" __global__ __aicore__ void waits_for_tiling(GM_ADDR lock) {
    volatile uint64_t* l = (volatile uint64_t*)lock;
    if (AscendC::GetBlockIdx() == 0) { dcci(l, 0, 2); while (*l != 1) dcci(l, 0, 2); }
}
"""

_TILING_TEXT = {1: "crashed: SIGSEGV", 2: "crashed: SIGFPE", 3: "crashed: SIGILL", 4: "crashed: stack overflow",
                5: "never returned", 6: "crashed: SIGABRT", 7: "threw: bad rows", 8: "returned 3"}


@pytest.fixture(scope="module")
def faulty_tiling(tmp_path_factory):
    if shutil.which("g++") is None:
        pytest.skip("needs the host g++")
    from sk.toolflow.twinlib import tiling_function
    from sk.twin import binding as twin

    d = tmp_path_factory.mktemp("faulty_tiling")
    (d / "tiling.cpp").write_text(FAULTY_TILING)
    (d / "kernel.cpp").write_text(WAITS_FOR_TILING)
    runtime = twin.Twin(twin.build_runtime(twin.default_build_dir()))
    tiling = tiling_function(twin.compiler(), [str(d / "tiling.cpp")], str(d / "tiling.so"),
                             include_dir=str(twin.INCLUDE_DIR))
    fn = runtime.symbol(runtime.load_kernels(tiling), "faulty_tiling")
    kernel = runtime.symbol(runtime.load_kernels(twin.build_kernel_library([d / "kernel.cpp"], d / "k.so")),
                            "waits_for_tiling")
    return runtime, fn, kernel


@_seeded
@settings(max_examples=min(FUZZ_EXAMPLES, 40), deadline=None, database=None, derandomize=not _LONG,
          suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_fuzz_faulting_tiling_functions_end_naming_the_task(faulty_tiling, data):
    """A tiling function that crashes, loops, throws, fails or chooses a key or block dim out of range ends,
    in bounded time, the launch its tiling task runs in (naming the task and function) and its call alone
    (naming the function); a good one releases the lock; the twin runs the next launch."""
    from sk.twin import binding as twin

    runtime, fn, kernel = faulty_tiling
    kind = data.draw(st.sampled_from([0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8]))
    key = data.draw(st.one_of(st.sampled_from([1, 2, 0, 3, 2**63 - 1, -1]), st.integers(-2**63, 2**63 - 1)))
    blocks = data.draw(st.one_of(st.sampled_from([1, 4, 0, 5, 2**32 - 1]), st.integers(0, 2**32 - 1)))
    alone = data.draw(st.booleans())
    ctl, lock, tiling = runtime.alloc(24, "ctl"), runtime.alloc(64, "lock"), runtime.alloc(8, "tiling")
    try:
        ctl.write(b"".join(v.to_bytes(8, "little", signed=True) for v in (kind, key, blocks)))
        call = twin.TilingCall(function=fn, label="tiling function faulty_tiling of op 0 (fuzz)",
                               inputs=((ctl.address, 24),), tiling=tiling.address, tiling_bytes=8, max_block_dim=4,
                               keys=(1, 2))
        good = kind == 0 and key % 2**64 in (1, 2) and 1 <= blocks <= 4
        event(f"kind {kind}, {'alone' if alone else 'task'}, {'good' if good else 'bad'}")
        start = time.monotonic()
        if alone:
            error = ""
            try:
                got = runtime.run_tiling(call, timeout_ms=300)
            except SkError as e:
                error = str(e)
            if good:
                assert not error and got == (key, blocks), error
            else:
                assert "tiling function faulty_tiling of op 0 (fuzz)" in error, error
        else:
            spec = twin.LaunchSpec(name="fuzz_sk", entry=kernel, block_dim=4, ration="0:1", params=[lock.address],
                                   num_args=1, timeout_ms=300)
            words = [twin.TwinWord(address=lock.address, by_task=True, what="the tiling lock of op 0 (fuzz)")]
            task = twin.TwinTask(name="fuzz_tiling", wait_word=None, release_word=0, tiling=call)
            result = runtime.launch_tasks(spec, words, [task], check=False)
            error = result.error
            if good:
                assert result.ok, error
            else:
                assert result.status in (1, 4, 5), result
                assert "task 'fuzz_tiling' failed: its tiling function faulty_tiling of op 0 (fuzz)" in error, error
                assert "detached" not in error, error
        assert time.monotonic() - start < 10
        if kind:
            assert _TILING_TEXT[kind] in error, error
        elif not good:
            assert "chose" in error, error
        # The next launch runs: the good tiling releases the lock.
        ctl.write(b"".join(v.to_bytes(8, "little") for v in (0, 1, 4)))
        lock.write(bytes(8))
        spec = twin.LaunchSpec(name="fuzz_sk", entry=kernel, block_dim=4, ration="0:1", params=[lock.address],
                               num_args=1, timeout_ms=300)
        words = [twin.TwinWord(address=lock.address, by_task=True, what="the tiling lock of op 0 (fuzz)")]
        result = runtime.launch_tasks(spec, words, [twin.TwinTask(name="fuzz_tiling", wait_word=None,
                                                                  release_word=0, tiling=call)], check=False)
        assert result.ok, result.error
    finally:
        ctl.free()
        lock.free()
        tiling.free()
