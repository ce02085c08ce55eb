"""The input and output gates (issue 31): every bad path, number, JSON field and argument is refused
before a tool runs, through the command line AND through the persistent worker.

Each case builds its bad input in a fresh directory and gives the argv. Both ways it must end with
exit status 2 within 20 s, one error line that names the flag or field and the path or value, no
traceback, and the directory exactly as it was: no output left, a FIFO or a device link given as an
output still what it was. The classes: special files (FIFO, device, /proc, directory, dangling or
device link, a parent that is a file, too large) as inputs and outputs of every command that reads
or writes one, numbers past their C type, JSON of the wrong shape in every reader, arguments a C
string or UTF-8 cannot hold, bad param files.
"""

from __future__ import annotations

import json
import os
import select
import stat
import subprocess
import sys
import time

import pytest

from badinputs import fusion, make_object, no_calls_scan, sk
from sk.tests.harness import child_env

CASES = []
LIMIT_S = 20
AIV = "KERNEL_TYPE_AIV_ONLY"


def case(name, *keywords):
    """Registers fn(tmp) -> argv: a bad input whose error line must contain every keyword."""
    def register(fn):
        CASES.append(pytest.param(fn, keywords, id=name))
        return fn
    return register


def fifo(tmp, name):
    path = os.path.join(tmp, name)
    os.mkfifo(path)
    return path


def link(tmp, name, target):
    path = os.path.join(tmp, name)
    os.symlink(target, path)
    return path


def write(tmp, name, content=""):
    path = os.path.join(tmp, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb" if isinstance(content, bytes) else "w") as f:
        f.write(content)
    return path


def sparse(tmp, name, size):
    """A file of `size` bytes that occupies no disk."""
    path = write(tmp, name)
    os.truncate(path, size)
    return path


def out(tmp, name="x"):
    return os.path.join(tmp, "out", name)


COMPILE = ["subkernel", "compile", "--toolchain", "host", "--compiler", "g++", "--kernel-type", AIV,
           "--block-dim", "1"]


def compile_argv(tmp, src, *extra):
    return COMPILE + [*extra, "-o", out(tmp, "k.o"), src]


def pack_argv(tmp, kernel, wrapper, *extra):
    return ["subkernel", "pack", "--toolchain", "host", "--ld", "ld", "--objcopy", "objcopy", "--kernel-type", AIV,
            "--block-dim", "1", "--kernel-obj", kernel, "--wrapper-obj", wrapper,
            "--sync-scan", no_calls_scan(os.path.join(tmp, "k.sync.json")), "--entry", "k",
            "--out-obj", out(tmp, "k_sk.o"), "--out-json", out(tmp, "k_sk.json"), *extra]


def gen_argv(tmp, ki, *extra):
    return ["gen", "--kernel-infos", ki, "--out-dir", out(tmp, "gen"), *extra]


def obj(tmp, name="a.o"):
    return make_object(os.path.join(tmp, name), ["k"])


# ---------------------------------------------------------------- inputs that are not regular files

@case("compile_source_fifo", "argument src", "src.cpp", "fifo")
def _(tmp):
    return compile_argv(tmp, fifo(tmp, "src.cpp"))


@case("compile_source_dev_zero", "argument src", "/dev/zero", "character device")
def _(tmp):
    return compile_argv(tmp, "/dev/zero")


@case("compile_source_link_to_dev_zero", "argument src", "zero.cpp", "character device")
def _(tmp):
    return compile_argv(tmp, link(tmp, "zero.cpp", "/dev/zero"))


@case("compile_source_over_limit", "argument src", "huge.cpp", "over the limit", "256 MiB")
def _(tmp):
    return compile_argv(tmp, sparse(tmp, "huge.cpp", 257 << 20))


@case("compile_source_in_proc", "argument src", "/proc/self/status", "pseudo file system")
def _(tmp):
    return compile_argv(tmp, "/proc/self/status")


@case("compile_source_parent_is_a_file", "argument src", "a.cpp/k.cpp", "parent", "not a directory")
def _(tmp):
    return compile_argv(tmp, os.path.join(write(tmp, "a.cpp", "int x;"), "k.cpp"))


@case("compile_source_dangling_link", "argument src", "gone.cpp", "link to nothing")
def _(tmp):
    return compile_argv(tmp, link(tmp, "gone.cpp", os.path.join(tmp, "nowhere.cpp")))


@case("compile_include_is_a_fifo", "--include", "inc", "fifo", "not a directory")
def _(tmp):
    return compile_argv(tmp, write(tmp, "k.cpp", "int x;"), "--include", fifo(tmp, "inc"))


@case("compile_compiler_is_a_fifo", "--compiler", "cc", "fifo")
def _(tmp):
    argv = compile_argv(tmp, write(tmp, "k.cpp", "int x;"))
    argv[argv.index("g++")] = fifo(tmp, "cc")
    return argv


@case("entry_compile_source_fifo", "--src", "k_kernel.cpp", "fifo")
def _(tmp):
    return ["entry", "compile", "--toolchain", "host", "--compiler", "g++", "--plan", write(tmp, "plan.json", "{}"),
            "--src", fifo(tmp, "k_kernel.cpp"), "--arch", "cube", "-o", out(tmp, "k.o")]


@case("pack_kernel_object_fifo", "--kernel-obj", "kernel.o", "fifo")
def _(tmp):
    return pack_argv(tmp, fifo(tmp, "kernel.o"), obj(tmp, "w.o"))


@case("pack_wrapper_object_fifo", "--wrapper-obj", "wrapper.o", "fifo")
def _(tmp):
    return pack_argv(tmp, obj(tmp), fifo(tmp, "wrapper.o"))


@case("pack_sync_scan_dev_zero", "--sync-scan", "/dev/zero", "character device")
def _(tmp):
    argv = pack_argv(tmp, obj(tmp), obj(tmp, "w.o"))
    argv[argv.index("--sync-scan") + 1] = "/dev/zero"
    return argv


@case("twin_lib_object_fifo", "--obj", "a.o", "fifo")
def _(tmp):
    return ["twin", "lib", "--toolchain", "host", "--compiler", "g++", "--obj", fifo(tmp, "a.o"),
            "-o", out(tmp, "a.so")]


@case("twin_tiling_source_fifo", "argument srcs", "tiling.cpp", "fifo")
def _(tmp):
    return ["twin", "tiling", "--compiler", "g++", "--include", tmp, "-o", out(tmp, "t.so"),
            fifo(tmp, "tiling.cpp")]


@case("link_sub_object_fifo", "--sub-obj", "b.o", "fifo")
def _(tmp):
    return ["link", "--toolchain", "host", "--ld", "ld", "--objcopy", "objcopy", "--plan", write(tmp, "p.json", "{}"),
            "--entry-obj", obj(tmp), "--sub-obj", obj(tmp, "a_sub.o"), "--sub-obj", fifo(tmp, "b.o"),
            "--meta-in", write(tmp, "m.json", "{}"), "--out-obj", out(tmp, "k.o"), "--out-json", out(tmp, "k.json")]


@case("link_entry_dir_is_a_file", "--entry-dir", "e.o", "not a directory")
def _(tmp):
    return ["link", "--toolchain", "host", "--ld", "ld", "--objcopy", "objcopy", "--plan", write(tmp, "p.json", "{}"),
            "--entry-dir", obj(tmp, "e.o"), "--meta-in", write(tmp, "m.json", "{}"),
            "--out-obj", out(tmp, "k.o"), "--out-json", out(tmp, "k.json")]


@case("launch_manifest_fifo", "--manifest", "launch.json", "fifo")
def _(tmp):
    return ["launch", "--manifest", fifo(tmp, "launch.json"), "--flavor", "host", "--include", "k_launch.h",
            "--header", out(tmp, "k.h"), "--src", out(tmp, "k.cc")]


@case("model_in_proc_mem", "--model", "/proc/self/mem", "pseudo file system")
def _(tmp):
    return ["run", "--model", "/proc/self/mem", "--prof-dir", out(tmp, "prof")]


@case("report_plan_is_a_directory", "--plan", "plans", "directory")
def _(tmp):
    os.mkdir(os.path.join(tmp, "plans"))
    return ["report", "--plan", os.path.join(tmp, "plans"), "--meta", write(tmp, "m.json", "{}"), "-o", out(tmp)]


@case("kernel_infos_json_over_limit", "--kernel-infos", "big.json", "over the limit")
def _(tmp):
    return gen_argv(tmp, sparse(tmp, "big.json", (256 << 20) + 1))


@case("object_in_json_is_a_fifo", "op_list[0]", "a.o", "fifo")
def _(tmp):
    ki = fusion(os.path.join(tmp, "in"))
    os.unlink(os.path.join(tmp, "in", "a.o"))
    os.mkfifo(os.path.join(tmp, "in", "a.o"))
    return gen_argv(tmp, ki)


@case("model_kernel_source_fifo", "kernels.k.src", "k.cpp", "fifo")
def _(tmp):
    fifo(tmp, "k.cpp")
    model = {"name": "m", "tensors": {"x": {"dtype": "float32", "shape": [8]}, "z": {"dtype": "float32", "shape": [8]}},
             "kernels": {"k": {"src": "k.cpp", "kernel_type": "AIV_ONLY", "block_dim": 1, "inputs": ["x"],
                               "outputs": ["z"]}},
             "ops": [{"name": "a", "kernel": "k", "bind": {"x": "x", "z": "z"}}], "super_kernels": []}
    return ["run", "--model", write(tmp, "model.json", json.dumps(model)), "--build-dir", out(tmp, "build"),
            "--prof-dir", out(tmp, "prof")]


@case("kernel_infos_link_loop", "--kernel-infos", "loop.json", "too many levels of symbolic links")
def _(tmp):
    link(tmp, "loop2.json", os.path.join(tmp, "loop.json"))
    return gen_argv(tmp, link(tmp, "loop.json", os.path.join(tmp, "loop2.json")))


@case("kernel_infos_name_too_long", "--kernel-infos", "file name too long")
def _(tmp):
    return gen_argv(tmp, os.path.join(tmp, "k" * 300 + ".json"))


@case("plan_out_empty", "--plan-out", "''", "empty")
def _(tmp):
    return gen_argv(tmp, fusion(os.path.join(tmp, "in")), "--plan-out", "")


@case("model_json_infinity", "model.json", "infinity", "not a finite number")
def _(tmp):
    return ["run", "--model", write(tmp, "model.json", '{"name": "m", "tensors": {"x": {"shape": [Infinity]}}}'),
            "--prof-dir", out(tmp, "prof")]


# ---------------------------------------------------------------- param files

@case("param_file_binary", "@", "bin.params", "not utf-8")
def _(tmp):
    return ["@" + write(tmp, "bin.params", b"gen\n\xff\xfe\x00\x81--out-dir\n")]


@case("param_file_with_nul", "@", "nul.params", "nul byte")
def _(tmp):
    return ["@" + write(tmp, "nul.params", "gen\n--kernel-infos\nk\0.json\n")]


@case("param_file_proc_mem", "@/proc/self/mem", "pseudo file system")
def _(tmp):
    return ["@/proc/self/mem"]


@case("param_file_missing", "@", "none.params", "no such file")
def _(tmp):
    return ["@" + os.path.join(tmp, "none.params")]


# ---------------------------------------------------------------- outputs that must not be replaced

@case("plan_out_fifo", "--plan-out", "plan.json", "fifo", "absent or a regular file")
def _(tmp):
    return gen_argv(tmp, fusion(os.path.join(tmp, "in")), "--plan-out", fifo(tmp, "plan.json"))


@case("plan_out_link_to_a_device", "--plan-out", "null.json", "character device")
def _(tmp):
    return gen_argv(tmp, fusion(os.path.join(tmp, "in")), "--plan-out", link(tmp, "null.json", "/dev/null"))


@case("plan_out_in_proc", "--plan-out", "/proc/self/comm", "pseudo file system")
def _(tmp):
    return gen_argv(tmp, fusion(os.path.join(tmp, "in")), "--plan-out", "/proc/self/comm")


@case("report_out_is_a_directory", "argument -o", "report.md", "directory")
def _(tmp):
    os.mkdir(os.path.join(tmp, "report.md"))
    return ["report", "--plan", write(tmp, "p.json", "{}"), "--meta", write(tmp, "m.json", "{}"),
            "-o", os.path.join(tmp, "report.md")]


@case("compile_out_parent_is_a_file", "argument -o", "file/k.o", "cannot be made", "not a directory")
def _(tmp):
    argv = compile_argv(tmp, write(tmp, "k.cpp", "int x;"))
    argv[argv.index("-o") + 1] = os.path.join(write(tmp, "file"), "k.o")
    return argv


@case("prof_dir_is_a_file", "--prof-dir", "prof", "regular file", "not a directory")
def _(tmp):
    return ["run", "--model", write(tmp, "m.json", "{}"), "--prof-dir", write(tmp, "prof", "x")]


@case("build_dir_is_a_file", "--build-dir", "build", "regular file", "not a directory")
def _(tmp):
    return ["run", "--model", write(tmp, "m.json", "{}"), "--build-dir", write(tmp, "build", "x"),
            "--prof-dir", out(tmp, "prof")]


@case("prof_dir_trace_is_a_fifo", "--prof-dir", "trace.json", "fifo")
def _(tmp):
    os.mkdir(os.path.join(tmp, "prof"))
    fifo(tmp, "prof/trace.json")
    return ["run", "--model", write(tmp, "m.json", "{}"), "--prof-dir", os.path.join(tmp, "prof")]


@case("out_dir_is_a_fifo", "--out-dir", "gen", "fifo", "not a directory")
def _(tmp):
    return ["gen", "--kernel-infos", fusion(os.path.join(tmp, "in")), "--out-dir", fifo(tmp, "gen")]


@case("launch_twin_object_is_a_fifo", "--twin-obj", "k_twin.o", "fifo")
def _(tmp):
    return ["launch", "--manifest", write(tmp, "l.json", "{}"), "--flavor", "host", "--include", "k_launch.h",
            "--header", out(tmp, "k.h"), "--src", out(tmp, "k.cc"), "--twin-obj", "k.o=" + fifo(tmp, "k_twin.o")]


# ---------------------------------------------------------------- numbers past their C type

@case("tiling_key_2_64", "--tiling-key", "18446744073709551616", "0 to 18446744073709551615")
def _(tmp):
    return compile_argv(tmp, write(tmp, "k.cpp", "int x;"), "--entry", "k", "--tiling-key", str(2 ** 64))


@case("tiling_key_negative", "--tiling-key", "'-1'", "0 to 18446744073709551615")
def _(tmp):
    return compile_argv(tmp, write(tmp, "k.cpp", "int x;"), "--entry", "k", "--tiling-key=-1")


@case("block_dim_zero", "--block-dim", "'0'", "1 to 4294967295")
def _(tmp):
    argv = compile_argv(tmp, write(tmp, "k.cpp", "int x;"))
    argv[argv.index("--block-dim") + 1] = "0"
    return argv


@case("block_dim_2_32", "--block-dim", "4294967296", "1 to 4294967295")
def _(tmp):
    argv = compile_argv(tmp, write(tmp, "k.cpp", "int x;"))
    argv[argv.index("--block-dim") + 1] = str(2 ** 32)
    return argv


@case("block_dim_5000_digits", "--block-dim", "not a whole number", "characters in all")
def _(tmp):
    argv = compile_argv(tmp, write(tmp, "k.cpp", "int x;"))
    argv[argv.index("--block-dim") + 1] = "9" * 5000
    return argv


@case("split_mode_65", "--split-mode", "'65'", "1 to 64")
def _(tmp):
    return pack_argv(tmp, obj(tmp), obj(tmp, "w.o"), "--split-mode", "65")


@case("seed_negative", "--seed", "'-1'", "0 to 4294967295")
def _(tmp):
    return ["run", "--model", write(tmp, "m.json", "{}"), "--seed=-1", "--prof-dir", out(tmp, "prof")]


@case("repeat_zero", "--repeat", "'0'", "1 to 10000")
def _(tmp):
    return ["run", "--model", write(tmp, "m.json", "{}"), "--repeat", "0", "--prof-dir", out(tmp, "prof")]


@case("repeat_nan", "--repeat", "'nan'", "not a whole number")
def _(tmp):
    return ["run", "--model", write(tmp, "m.json", "{}"), "--repeat", "nan", "--prof-dir", out(tmp, "prof")]


# ---------------------------------------------------------------- JSON fields of the wrong type, in every reader

def _plan_and_meta(tmp):
    """A real plan and kernel JSON (sk gen), copied beside the case."""
    ki = fusion(os.path.join(tmp, "in"))
    res = sk(["gen", "--kernel-infos", ki, "--out-dir", os.path.join(tmp, "gen"),
              "--plan-out", os.path.join(tmp, "gen", "plan.json")])
    assert res.rc == 0, res.err
    meta = next(os.path.join(tmp, "gen", f) for f in os.listdir(os.path.join(tmp, "gen"))
                if f.endswith(".json") and f != "plan.json" and "compile_options" not in f)
    with open(os.path.join(tmp, "gen", "plan.json")) as f:
        plan = json.load(f)
    with open(meta) as f:
        return plan, json.load(f)


def report_case(name, edit, *keywords):
    @case(f"report_{name}", *keywords)
    def _(tmp):
        plan, meta = _plan_and_meta(tmp)
        edit(plan, meta)
        return ["report", "--plan", write(tmp, "plan.json", json.dumps(plan)),
                "--meta", write(tmp, "meta.json", json.dumps(meta)), "-o", out(tmp, "r.md")]


report_case("kernel_name_object", lambda p, m: p.update(kernel_name={"a": 1}), "plan.json", "kernel_name",
            "an object", "a string")
report_case("block_dim_many", lambda p, m: m.update(blockDim="many"), "meta.json", "blockdim", "'many'",
            "a whole number")
report_case("op_block_dim_bool", lambda p, m: p["ops"][0].update(block_dim=True), "ops[0].block_dim", "true")
report_case("barrier_between_three", lambda p, m: p["barriers"].append({"between": [0, 1, 2], "kind": "x"}),
            "between", "[0, 1, 2]")
report_case("workspace_size_words", lambda p, m: m.update(workspace={"num": 1, "size": ["big"], "type": [0]}),
            "meta.json", "workspace.size", "['big']", "whole numbers")
report_case("ops_funcs_string", lambda p, m: p["ops"][1].update(funcs="all"), "ops[1].funcs", "'all'", "a list")


def test_report_of_a_well_typed_plan_and_meta_is_written(tmp_path):
    """The type checks refuse only what is wrong: a kernel JSON with a workspace (a list of sizes) renders."""
    tmp = str(tmp_path)
    plan, meta = _plan_and_meta(tmp)
    meta["workspace"] = {"num": 1, "size": [20480], "type": [0]}
    res = sk(["report", "--plan", write(tmp, "plan.json", json.dumps(plan)),
              "--meta", write(tmp, "meta.json", json.dumps(meta)), "-o", out(tmp, "r.md")])
    assert res.rc == 0, res.err
    assert "20480" in open(out(tmp, "r.md")).read()


@case("report_plan_nan", "plan.json", "nan", "not a finite number")
def _(tmp):
    plan, meta = _plan_and_meta(tmp)
    text = json.dumps(plan).replace('"block_dim": 8', '"block_dim": NaN', 1)
    return ["report", "--plan", write(tmp, "plan.json", text), "--meta", write(tmp, "meta.json", json.dumps(meta)),
            "-o", out(tmp, "r.md")]


@case("report_meta_duplicate_key", "meta.json", "'blockdim' appears twice")
def _(tmp):
    plan, meta = _plan_and_meta(tmp)
    text = json.dumps(meta).replace('"blockDim": 8', '"blockDim": 8, "blockDim": 9', 1)
    return ["report", "--plan", write(tmp, "plan.json", json.dumps(plan)), "--meta", write(tmp, "meta.json", text),
            "-o", out(tmp, "r.md")]


@case("report_plan_empty_file", "plan.json", "not valid json")
def _(tmp):
    return ["report", "--plan", write(tmp, "plan.json"), "--meta", write(tmp, "m.json", "{}"), "-o", out(tmp)]


def built_case(name, manifest, *keywords):
    @case(f"built_{name}", *keywords)
    def _(tmp):
        return ["model", "--built", write(tmp, "built.json", json.dumps(manifest)),
                "--data", write(tmp, "data.json", "{}"), "-o", out(tmp, "model.json")]


built_case("a_list", ["runtime", "libskrt.so"], "built.json", "json object", "a list")
built_case("build_a_string", {"build": "all"}, "built.json", "build", "'all'", "an object")
built_case("kernels_a_list", {"build": {"kernels": ["k"]}}, "build.kernels", "a list", "an object")
built_case("kernel_src_a_number", {"build": {"kernels": {"k": {"src": 5}}}}, "kernels.k.src", "5", "a string")


@case("run_built_runtime_a_number", "built.json", "runtime", "7", "a string")
def _(tmp):
    return ["run", "--model", write(tmp, "m.json", "{}"), "--built", write(tmp, "built.json", '{"runtime": 7}'),
            "--prof-dir", out(tmp, "prof")]


@case("run_built_scope_without_plan", "built.json", "scopes.s.plan", "missing")
def _(tmp):
    doc = {"runtime": "r.so", "scopes": {"s": {"library": "s.so", "meta": "s.json"}}}
    return ["run", "--model", write(tmp, "m.json", "{}"), "--built", write(tmp, "built.json", json.dumps(doc)),
            "--prof-dir", out(tmp, "prof")]


def launch_case(name, content, *keywords):
    @case(f"launch_{name}", *keywords)
    def _(tmp):
        return ["launch", "--manifest", write(tmp, "launch.json", content), "--flavor", "host",
                "--include", "k_launch.h", "--header", out(tmp, "k.h"), "--src", out(tmp, "k.cc")]


launch_case("garbage_bytes", bytes(range(256)) * 4, "launch.json", "not utf-8")
launch_case("not_json", "name = k\n", "launch.json", "not valid json")
launch_case("a_list", "[1, 2]", "launch.json", "json object", "'list'")
launch_case("name_a_number", '{"name": 5, "label": "//k", "ops": [], "pieces": []}', "launch.json.name", "5")
launch_case("ops_of_numbers", '{"name": "k", "label": "//k", "ops": [1, 2], "pieces": []}', "ops[0]", "1",
            "json object")
launch_case("ops_without_kernels",
            '{"name": "k", "label": "//k", "ops": [{"name": "a", "label": "a"}], "pieces": [{"first": 0, "count": 1}]}',
            "launch", "unexpected shape")


@case("kernel_infos_empty_file", "kernel_infos", "not valid json")
def _(tmp):
    return gen_argv(tmp, write(tmp, "kernel_infos.json"))


@case("wrap_param_not_an_identifier", "--param", "'a b'", "not a c identifier")
def _(tmp):
    return ["subkernel", "wrap", "--toolchain", "host", "--compiler", "g++", "--kernel-type", AIV, "--block-dim", "1",
            "--sync-scan", no_calls_scan(os.path.join(tmp, "k.sync.json")), "--entry", "k", "--param", "a b",
            "-o", out(tmp, "w.o")]


# ---------------------------------------------------------------- text no C string or UTF-8 file can hold

@case("compiler_flag_with_nul_in_param_file", "@", "flags.params", "nul byte")
def _(tmp):
    return ["@" + write(tmp, "flags.params", "\n".join(compile_argv(tmp, write(tmp, "k.cpp", "int x;"))
                                                       + ["--", "-DX=\0"]))]


# Bytes that are not UTF-8 in a path reach sk as lone surrogates (Python's argv decoding); a worker request
# carries them as "\udcff". Both are refused naming the flag.
@case("kernel_infos_path_not_utf8", "--kernel-infos", "not unicode text")
def _(tmp):
    return gen_argv(tmp, os.path.join(tmp, "k\udcff.json"))


@case("options_with_lone_surrogate", "argument 2", "not unicode text")
def _(tmp):
    return ["options", "split-mode=4\udcff"]


# ---------------------------------------------------------------- the checks

def _snapshot(root):
    """Every entry under root: (kind, size, mtime, link target); what a refused command must leave alone."""
    seen = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            st = os.lstat(path)
            target = os.readlink(path) if stat.S_ISLNK(st.st_mode) else None
            seen[os.path.relpath(path, root)] = (stat.S_IFMT(st.st_mode), st.st_size if stat.S_ISREG(st.st_mode) else 0,
                                                 st.st_mtime_ns if stat.S_ISREG(st.st_mode) else 0, target)
    return seen


def _check(res_rc, text, elapsed, keywords, before, tmp):
    assert res_rc == 2, f"exit {res_rc}: {text}"
    assert elapsed < LIMIT_S, f"took {elapsed:.1f} s"
    assert "Traceback" not in text and "internal error" not in text, text
    lines = [line for line in text.splitlines() if line.strip()]
    assert len(lines) == 1 and ": error: " in lines[0], text
    for word in keywords:
        assert word.lower() in lines[0].lower(), f"{word!r} not in: {lines[0]}"
    assert _snapshot(tmp) == before, "the refused command changed the files beside it"


def _cli(argv, cwd):
    """`python -m sk ARGV` with argv passed as bytes, so a lone surrogate reaches sk as the byte it stands for."""
    raw = [os.fsencode(a) for a in argv]
    start = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "sk", *raw], cwd=cwd, env=child_env(None), capture_output=True,
                          timeout=LIMIT_S * 3)
    return proc.returncode, proc.stderr.decode(errors="replace") + proc.stdout.decode(errors="replace"), \
        time.monotonic() - start


@pytest.mark.parametrize("build,keywords", CASES)
def test_cli_refuses_before_any_tool(tmp_path, build, keywords):
    tmp = str(tmp_path)
    argv = build(tmp)
    before = _snapshot(tmp)
    rc, text, elapsed = _cli(argv, tmp)
    _check(rc, text, elapsed, keywords, before, tmp)


class Worker:
    """`sk --persistent_worker`, one request at a time, each answer awaited at most `timeout` seconds."""

    def __init__(self, cwd):
        self.proc = subprocess.Popen([sys.executable, "-m", "sk", "--persistent_worker"], cwd=cwd,
                                     env=child_env(None), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE)
        self._buffer = b""

    def send_raw(self, data: bytes):
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def answer(self, timeout=LIMIT_S * 3) -> dict:
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            assert left > 0, "no answer from the worker"
            ready, _, _ = select.select([self.proc.stdout], [], [], left)
            if ready:
                chunk = os.read(self.proc.stdout.fileno(), 1 << 16)
                assert chunk, f"the worker ended: {self.proc.stderr.read().decode(errors='replace')}"
                self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return json.loads(line)

    def request(self, argv, request_id, sandbox) -> dict:
        self.send_raw(json.dumps({"arguments": argv, "requestId": request_id, "sandboxDir": sandbox}).encode() + b"\n")
        return self.answer()

    def close(self) -> tuple:
        self.proc.stdin.close()
        rc = self.proc.wait(timeout=60)
        return rc, self.proc.stderr.read().decode(errors="replace")


@pytest.fixture(scope="module")
def worker(tmp_path_factory):
    w = Worker(str(tmp_path_factory.mktemp("worker")))
    yield w
    rc, log = w.close()
    assert rc == 0 and "Traceback" not in log, log


@pytest.mark.parametrize("build,keywords", CASES)
def test_worker_refuses_before_any_tool_and_lives_on(tmp_path, worker, build, keywords):
    tmp = str(tmp_path)
    argv = build(tmp)
    before = _snapshot(tmp)
    start = time.monotonic()
    response = worker.request(argv, 7, tmp)
    assert response["requestId"] == 7
    _check(response["exitCode"], response["output"], time.monotonic() - start, keywords, before, tmp)


def test_worker_nul_byte_in_a_path_names_the_flag(tmp_path, worker):
    response = worker.request(gen_argv(str(tmp_path), "k\0.json"), 8, str(tmp_path))
    assert response["exitCode"] == 2 and "--kernel-infos" in response["output"] and "NUL" in response["output"]


def test_catalog_of_gates_covers_every_class():
    ids = {c.id for c in CASES}
    assert len(ids) == len(CASES) and len(ids) >= 60, len(ids)


# ---------------------------------------------------------------- the worker's own protocol

def _worker_session(tmp_path, data: bytes):
    w = Worker(str(tmp_path))
    w.send_raw(data)
    return w


def test_worker_answers_a_request_with_trailing_garbage_and_lives_on(tmp_path):
    w = _worker_session(tmp_path, b'{"arguments": ["version"], "requestId": 1} trailing }{ garbage\n'
                                  b'{"arguments": ["version"], "requestId": 2}\n')
    assert [w.answer()["requestId"], w.answer()["requestId"]] == [1, 2]
    rc, log = w.close()
    assert rc == 0 and "ignored text after a work request" in log and "Traceback" not in log, log


def test_worker_exits_cleanly_on_a_line_that_is_no_request(tmp_path):
    for bad, says in ((b"not json at all\n", "is not JSON"), (b"[1, 2]\n", "must be a JSON object"),
                      (b"[" * 100000 + b"\n", "nested too deep"),
                      (b'{"arguments": ' + b"[" * 100000 + b"]" * 100000 + b', "requestId": 3}\n', "nested too deep"),
                      (b"\xff\xfe\n", "is not JSON")):
        w = _worker_session(tmp_path, bad)
        rc, log = w.close()
        assert rc == 1 and says in log and "starts a new worker" in log and "Traceback" not in log, (bad[:20], log)
        assert len([line for line in log.splitlines() if line.strip()]) == 1, log


def test_worker_answers_bad_request_fields_and_lives_on(tmp_path):
    w = _worker_session(tmp_path, b'{"arguments": "version", "requestId": 4}\n'
                                  b'{"arguments": ["version"], "requestId": 5, "sandboxDir": 12}\n'
                                  b'{"arguments": ["options", "split-mode=\\udcff"], "requestId": 6}\n')
    answers = [w.answer() for _ in range(3)]
    assert [(a["requestId"], a["exitCode"]) for a in answers] == [(4, 2), (5, 2), (6, 2)], answers
    assert "not Unicode text" in answers[2]["output"]
    rc, log = w.close()
    assert rc == 0, log
