"""sk's CANN flow step by step, with the recording stand-in toolkit (tests/fake_cann).

The sub-kernels are built for the twin (their archives are what the CANN flow
takes, as upstream's compile_super_kernel takes compiled sub-kernels); the
SuperKernel's own steps then run with `--toolchain cann` and the stand-in's
bisheng / ld.lld / llvm-objcopy, which record each call and do it with the
host's tools. Checked: the recorded command SEQUENCE of `sk entry compile`
(each half) and `sk link` at split-mode 1 and 4, token by token with paths cut
to file names (the halves compiled by bisheng, the entry stubs by ccec, as
upstream's compile_super_kernel runs them); the final object's globals (the entries and g_opSystemRunCfg,
defined once); and that the object the CANN flow made runs on the twin
bit-exact against separate launches, with a sub-kernel that reads
g_opSystemRunCfg.
"""

import dataclasses
import json
import os
import re

import pytest

from sk.binfmt import objfacts
from sk.tests.harness import HOST_TOOLS, REPO, needs_host_tools, needs_twin_sources, run_sk
from sk.toolflow import link, toolargv
from sk.twin import model as model_mod
from sk.twin import run

pytestmark = [needs_host_tools, needs_twin_sources]

FAKE = os.path.join(REPO, "tests", "fake_cann")
BIN = os.path.join(FAKE, "compiler", "ccec_compiler", "bin")
INCLUDE = os.path.join(FAKE, "x86_64-linux", "asc", "include")
# The entry stubs get upstream's own list (ADK gen_spk_kernel_call); two of it stand for it here.
STUB_INCLUDES = [os.path.join(FAKE, "x86_64-linux", "asc", "impl", "basic_api", "reg_compute"),
                 os.path.join(FAKE, "x86_64-linux", "asc")]
MODEL = os.path.join(REPO, "sk", "tests", "fixtures", "runcfg", "model.json")
SK = "te_superkernel_rc"

MLLVM_TAIL = list(toolargv.CANN_MLLVM_TAIL)
SPLIT = list(toolargv.CANN_SPLIT_FLAGS)


@pytest.fixture(scope="module")
def runtime_dir():
    """The runtime every test of a pytest process shares (one runtime per process)."""
    from sk.twin import binding

    return str(binding.default_build_dir())


def _model(split: int):
    m = model_mod.load(MODEL)
    scope = dataclasses.replace(m.scopes[0], options=f"split-mode={split}")
    return dataclasses.replace(m, scopes=(scope,))


def _cann(root: str, log: str, runtime: str):
    """The SuperKernel's steps of the twin build under `root` again, with the CANN stand-in; the records.

    The objects are the twin's, so what they leave undefined is the twin runtime's (runtime: its library)
    and the C library's, which the CANN link is told as a toolkit's runtime would be."""
    env = {"SK_FAKE_CANN_LOG": log, "SK_FAKE_CANN_TWIN_INCLUDE": os.path.join(REPO, "sk", "runtime", "include"),
           "SK_FAKE_CANN_CXX": HOST_TOOLS["g++"], "SK_FAKE_CANN_LD": HOST_TOOLS["ld"],
           "SK_FAKE_CANN_OBJCOPY": HOST_TOOLS["objcopy"]}
    plan, gen = os.path.join(root, "plan.json"), os.path.join(root, "gen")
    with open(os.path.join(root, "kernel_infos.json"), encoding="utf-8") as f:
        subs = [os.path.join(root, op["bin_path"]) for op in json.load(f)["op_list"]]
    out = os.path.join(root, "cann")
    dirs = []
    for side in ("cube", "vec"):
        d = os.path.join(out, f"entry_{side}")
        proc = run_sk("entry", "compile", "--toolchain", "cann", "--compiler", os.path.join(BIN, "bisheng"),
                      "--stub-compiler", os.path.join(BIN, "ccec"), "--objcopy", os.path.join(BIN, "llvm-objcopy"), "--include", INCLUDE,
                      *[a for d in STUB_INCLUDES for a in ("--stub-include", d)], "--plan", plan,
                      "--src", os.path.join(gen, f"{SK}_kernel.cpp"),
                      "--compile-options", os.path.join(gen, f"{SK}.compile_options.json"),
                      "--arch", side, "--out-dir", d, env=env)
        assert proc.returncode == 0, proc.stderr
        dirs += ["--entry-dir", d]
    proc = run_sk("link", "--toolchain", "cann", "--ld", os.path.join(BIN, "ld.lld"),
                  "--objcopy", os.path.join(BIN, "llvm-objcopy"), "--plan", plan, *dirs,
                  *[a for s in subs for a in ("--sub-obj", s)], "--meta-in", os.path.join(gen, f"{SK}.json"),
                  "--out-obj", os.path.join(out, f"{SK}.o"), "--out-json", os.path.join(out, f"{SK}.json"),
                  "--runtime-lib", runtime, *[a for s in sorted(HOST_UNDEFINED) for a in ("--allow-undefined", s)],
                  env=env)
    assert proc.returncode == 0, proc.stderr
    with open(log, encoding="utf-8") as f:
        records = [json.loads(line) for line in f]
    return os.path.join(out, f"{SK}.o"), records


# What a twin object leaves undefined beyond the runtime library's exports: the C library's, and g++'s
# weak thread-local init wrapper of the runtime's early-start flag.
HOST_UNDEFINED = link.HOST_ALWAYS_ALLOWED | {"_ZTH33g_super_kernel_early_start_config"}

# Scratch names sk chooses at random (scratch_dir, atomic_output) or numbers (ld's inputs).
_RANDOM = re.compile(r"^\.sk-[a-z0-9_]{8}")


def _norm(token: str) -> str:
    """A token with its directories cut off (a path's place in a sequence is what is compared)."""
    if "/" not in token:
        return token
    if token.startswith("-I"):
        return "-I" + os.path.basename(token[2:])
    head, _, tail = token.rpartition("=") if token.startswith("-") else ("", "", token)
    name = _RANDOM.sub(".sk-TMP", os.path.basename(tail))
    return f"{head}={name}" if head else name


def _sequence(records):
    return [[r["tool"], *map(_norm, r["argv"])] for r in records]


def _entry_compile(side: str, out: str, flags, split: int):
    sym = f"{SK}_mix_{'aic' if side == 'cube' else 'aiv'}"
    return ["bisheng", "-c", "-O3", "-x", "cce", "-Iinclude", *flags, f"{SK}_kernel.cpp",
            f"--cce-aicore-arch=dav-c220-{side}", "--cce-aicore-only", "-o", out, *MLLVM_TAIL,
            *(SPLIT if split > 1 else []), "-std=c++17", f"-Dauto_gen_{SK}_kernel={sym}",
            "-D__MIX_CORE_MACRO__=1", "-DTILING_KEY_VAR=0UL", f"-D{SK}={SK}_0_tilingkey"]


def _half(side: str, index: int, flags, split: int):
    """The commands of one `sk entry compile --arch side` at split-mode `split`."""
    sym = f"{SK}_mix_{'aic' if side == 'cube' else 'aiv'}"
    obj, local = f"{sym}.o", f"_sk_mix_{'aic' if side == 'cube' else 'aiv'}"
    if split == 1:
        # atomic_output: the tool writes `out.o` in a scratch directory, published as the half's object.
        return [_entry_compile(side, "out.o.raw", flags, split),
                ["llvm-objcopy", "--localize-symbols=out.o.raw.localize.txt", "--remove-section=.group",
                 "out.o.raw", "out.o"]]
    seq = [_entry_compile(side, f"{obj}.raw", flags, split),
           ["llvm-objcopy", f"--localize-symbols={obj}.raw.localize.txt", "--remove-section=.group",
            f"{obj}.raw", obj]]
    for i in range(1, split):
        seq += [["llvm-objcopy", "--redefine-sym", f"{sym}={local}_{i}", f"{obj}.split{i}.o"],
                ["llvm-objcopy", "--strip-symbol=g_opSystemRunCfg", f"{obj}.split{i}.o"]]
    seq += [["llvm-objcopy", "--redefine-sym", f"{sym}={local}", obj],
            ["ccec", "-x", "cce", "-Ireg_compute", "-Iasc", "-O3", f"--cce-aicore-arch=dav-c220-{side}",
             "--cce-aicore-only",
             *toolargv.CANN_STUB_MLLVM, "-std=c++17", "-DTILING_KEY_VAR=0", "-o", f"sk_{index}.o", "-c",
             f"sk_{index}.cpp"]]
    return seq


@pytest.mark.parametrize("split", [1, 4])
def test_cann_flow_steps_globals_and_twin_run(split, tmp_path, runtime_dir):
    m = _model(split)
    built = run.build(m, str(tmp_path / "twin"), compiler=HOST_TOOLS["g++"], ld=HOST_TOOLS["ld"],
                      objcopy=HOST_TOOLS["objcopy"], runtime_dir=runtime_dir)
    root = os.path.dirname(built.scopes[SK].library)
    # The twin's own link keeps g_opSystemRunCfg global but weak: a program may link several SuperKernels.
    host_info = objfacts.read_object(os.path.join(root, f"{SK}.o"))
    assert [s.bind for s in host_info.defined_globals() if s.name == "g_opSystemRunCfg"] == ["WEAK"]
    obj, records = _cann(root, str(tmp_path / "cann.log"), built.runtime)
    seq = _sequence(records)

    with open(os.path.join(root, "gen", f"{SK}.compile_options.json"), encoding="utf-8") as f:
        flags, split_calls = toolargv.translate_flags("cann", json.load(f))
    assert split_calls == (split > 1)
    assert flags[-1] == "--cce-disable-kernel-global-attr-check"  # upstream's place: after compile-options
    expected = _half("cube", 0, flags, split) + _half("vec", 1, flags, split)
    assert seq[:len(expected)] == expected

    link_seq = seq[len(expected):]
    assert [c[0] for c in link_seq] == ["ld.lld", "ld.lld", "llvm-objcopy"]
    ld = link_seq[0]
    assert ld[:7] == ["ld.lld", "-m", "aicorelinux", "-r", "-Ttext=0", "-q", "-x"] and ld[-3:] == [
        "-static", "-o", "merged.o"]
    linked = [re.sub(r"^\d{5}_", "", t) for t in ld[7:-3]]
    cube_set = ([f"{SK}_mix_aic.o"] if split == 1 else
                ["sk_0.o", f"{SK}_mix_aic.o", *(f"{SK}_mix_aic.o.split{i}.o" for i in range(1, split))])
    vec_set = ([f"{SK}_mix_aiv.o"] if split == 1 else
               ["sk_1.o", f"{SK}_mix_aiv.o", *(f"{SK}_mix_aiv.o.split{i}.o" for i in range(1, split))])
    # Upstream's PerCubeHerVecWithSuper order: the cube half's set, the cube sub-kernels, the vector half's, the
    # vector sub-kernels (each sub-op archive whole).
    assert linked[:len(cube_set)] == cube_set
    at = linked.index(vec_set[0])
    assert linked[at:at + len(vec_set)] == vec_set
    assert "cube_double" in " ".join(linked[len(cube_set):at]) and "runcfg_add" in " ".join(linked[at:])
    assert link_seq[1] == ["ld.lld", "-m", "aicorelinux", "-Ttext=0", "merged.o", "-static", "-o", "placed.o",
                           "-q"]
    assert link_seq[2][:2] == ["llvm-objcopy", "--localize-symbols=localize.txt"]

    # The final object's globals: the entries and g_opSystemRunCfg, defined once; the _sk copies local.
    info = objfacts.read_object(obj)
    assert sorted(s.name for s in info.defined_globals()) == ["g_opSystemRunCfg", f"{SK}_mix_aic",
                                                              f"{SK}_mix_aiv"]
    defs = [s for s in info.symbols if s.name == "g_opSystemRunCfg" and s.defined]
    assert [s.bind for s in defs] == ["GLOBAL"]
    local = sorted(s.name for s in info.symbols if s.name.startswith("_sk_mix"))
    assert local == ([] if split == 1 else sorted(f"_sk_mix_{h}{f'_{i}' if i else ''}"
                                                   for h in ("aic", "aiv") for i in range(split)))
    assert all(s.bind == "LOCAL" for s in info.symbols if s.name.startswith("_sk_mix"))

    # The object the CANN flow made, launched on the twin, equals separate launches bit for bit.
    lib = str(tmp_path / "cann_sk.so")
    tools = toolargv.Tools("host", compiler=HOST_TOOLS["g++"], linker=HOST_TOOLS["ld"])
    import subprocess

    subprocess.run(toolargv.twin_shared_argv(tools, [obj], lib), check=True)
    scope = dataclasses.replace(built.scopes[SK], library=lib)
    report = run.execute(m, dataclasses.replace(built, scopes={SK: scope}), seed=0, repeat=1)
    assert report.identical, report.lines()


@pytest.mark.parametrize("soc, chip", [(None, "c220"), ("Ascend910B4-1", "c220"), ("Ascend950PR_9579", "c310")])
def test_sub_kernel_compile_targets_the_socs_chip(soc, chip, tmp_path):
    # SkCompile passes the toolchain's SoC: c310 compiles for dav-c310-* with upstream's c310 flags.
    log = str(tmp_path / "cann.log")
    proc = run_sk("subkernel", "compile", "--toolchain", "cann", "--compiler", os.path.join(BIN, "bisheng"),
                  "--include", INCLUDE, *(["--soc", soc] if soc else []), "--kernel-type", "KERNEL_TYPE_AIV_ONLY",
                  "--block-dim", "8", "--options", "", "--sync-out", str(tmp_path / "k.sync.json"),
                  "-o", str(tmp_path / "k.o"), os.path.join(os.path.dirname(MODEL), "runcfg_add.cpp"),
                  env={"SK_FAKE_CANN_LOG": log, "SK_FAKE_CANN_CXX": HOST_TOOLS["g++"],
                       "SK_FAKE_CANN_TWIN_INCLUDE": os.path.join(REPO, "sk", "runtime", "include")})
    assert proc.returncode == 0, proc.stderr
    with open(log, encoding="utf-8") as f:
        records = [json.loads(line) for line in f]
    # Upstream's scan preprocesses both sides; an AIV_ONLY kernel then compiles for the vector side.
    arches = [[a for a in r["argv"] if a.startswith("--cce-aicore-arch=")] for r in records]
    assert arches == [[f"--cce-aicore-arch=dav-{chip}-cube"], [f"--cce-aicore-arch=dav-{chip}-vec"],
                      [f"--cce-aicore-arch=dav-{chip}-vec"]]
    for r in records:
        assert ("-D__DAV_C310__" in r["argv"]) == (chip == "c310")
        assert ("--cce-aicore-jump-expand=true" in r["argv"]) == (chip == "c310")
