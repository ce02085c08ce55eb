"""The link pipeline on real g++/ld/objcopy objects.

Uses a minimal stand-in header (fixtures/mini_rt) instead of the CPU twin, so
the symbol work (localisation, COMDAT groups, split copies, link order,
verification) is tested on its own. End-to-end runs on the twin are in
tests/e2e.
"""

import json
import os
import shutil
import subprocess

import pytest

from sk.binfmt import ar
from sk.toolflow import link
from sk.binfmt import objfacts
from sk.toolflow import subkernel
from sk.engine import kernel_types
from sk.toolflow import toolargv
from sk.base.errors import SkError
from sk.tests.harness import HOST_TOOLS, needs_host_tools

HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.join(HERE, "fixtures")
MINI = os.path.join(FIX, "mini_rt")
GXX, LD, OBJCOPY = HOST_TOOLS["g++"], HOST_TOOLS["ld"], HOST_TOOLS["objcopy"]
pytestmark = needs_host_tools


def tools():
    return toolargv.Tools("host", compiler=GXX, linker=LD, objcopy=OBJCOPY)


def build_sub(tmp, src, entry, block_dim, options="split-mode=2", kernel_type="AIV_ONLY"):
    """compile + wrap + pack one fixture kernel; -O0 keeps inline helpers out of line (COMDAT)."""
    kt = kernel_types.lookup(kernel_type, "test")
    d = tmp / entry
    d.mkdir()
    t = tools()
    scan = str(d / "k.sync.json")
    subkernel.compile_source(t, os.path.join(FIX, src), str(d / "k.o"), kt=kt, block_dim=block_dim,
                             options=options, include_dirs=[MINI], extra=["-O0"], sync_out=scan)
    subkernel.wrap(t, entry=entry, name=entry, params=["in", "out"], kt=kt, block_dim=block_dim, options=options,
                   op_type="", loc="middle", kernel_obj=str(d / "k.o"), out=str(d / "w.o"), sync_scan=scan,
                   include_dirs=[MINI], extra=["-O0"])
    doc = subkernel.pack(t, kernel_obj=str(d / "k.o"), wrapper_obj=str(d / "w.o"), entry=entry, name=entry, kt=kt,
                         block_dim=block_dim, params=["in", "out"], options=options, op_type="", loc="middle",
                         out_obj=str(d / f"{entry}.o"), out_json=str(d / f"{entry}.json"), sync_scan=scan)
    return d / f"{entry}.o", doc


def compile_entry(tmp, name, body):
    src = tmp / f"{name}.cpp"
    decls = "".join(f'extern "C" void {f}(unsigned long);\n' for f in sorted(set(_calls(body))))
    src.write_text(f'{decls}\n#include "kernel_operator.h"\ninline int shared_inline() {{ return 7; }}\n'
                   f'extern "C" void {name}(void) {{ shared_inline(); {body} }}\n')
    out = tmp / f"{name}.o"
    subprocess.run(toolargv.compile_argv(tools(), str(src), str(out), arch="vec", include_dirs=[MINI],
                                         extra=["-O0"]), check=True)
    return out


def _calls(body):
    return [part.split("(")[0].strip() for part in body.split(";") if "(" in part]


def run_linked(tmp, obj, entry, slots):
    exe = tmp / "run"
    subprocess.run([GXX, "-O0", f"-DENTRY={entry}", "-I", MINI, os.path.join(MINI, "mini_rt.cpp"), str(obj),
                    "-o", str(exe)], check=True)
    return subprocess.run([str(exe), *map(str, slots)], check=True, capture_output=True, text=True).stdout.split()


def test_colliding_helpers_link_and_each_sub_kernel_keeps_its_own(tmp_path):
    a, doc_a = build_sub(tmp_path, "helper_a.cpp", "kern_a", block_dim=8)
    b, doc_b = build_sub(tmp_path, "helper_b.cpp", "kern_b", block_dim=3)
    # Op a: params 0,1; op b: params 2,3; op a again through split copy 1: params 4,5.
    entry = compile_entry(tmp_path, "fused_mix_aiv",
                          "kern_a_middle(0); kern_b_middle(2); kern_a_middle_split1(4);")
    inputs = [link.LinkInput("entry", str(entry), entry_symbol="fused_mix_aiv")]
    for arch_obj, doc in ((a, doc_a), (b, doc_b)):
        names = doc["sub_operator_kernel_name"]["AiCore"]
        func = names["func_name"]
        inputs += [link.LinkInput(f"{arch_obj}({m})", str(arch_obj), m,
                                  symbol=func + (f"_split{k[len('obj_files_split'):]}" if k != "obj_files" else ""))
                   for k, m in sorted(names.items()) if k.startswith("obj_files")]
    out = tmp_path / "fused.o"
    meta = {"kernelName": "fused", "sha256": "", "blockDim": 8}
    result = link.link(tools(), inputs, entry_symbols=["fused_mix_aiv"], out_obj=str(out),
                       out_json=str(tmp_path / "fused.json"), meta=meta,
                       allowed_undefined={"get_para_base", "sk_twin_sync_all", "sk_twin_trace_begin", "sk_twin_trace_end"})
    assert result.defined_globals == ("fused_mix_aiv",)
    written = json.loads((tmp_path / "fused.json").read_text())
    assert written["sha256"] == result.sha256 and written["blockDim"] == 8
    # helper(x)=x+1 in a (block num 8), x*2 in b (block num 3); one SyncAll from b.
    assert run_linked(tmp_path, out, "fused_mix_aiv", [5, 0, 5, 0, 9, 0]) == [
        "5", "6008", "5", "10003", "9", "10008", "syncs=1"]


def test_pack_records_split_copies_sync_all_and_sizes(tmp_path):
    b, doc = build_sub(tmp_path, "helper_b.cpp", "kern_b", block_dim=3, options="split-mode=4")
    assert doc["sub_op_with_sync_all"] is True
    names = doc["sub_operator_kernel_name"]["AiCore"]
    assert names == {"func_name": "kern_b_middle", "obj_files": "kern_b.o", "obj_files_split1": "kern_b_split1.o",
                     "obj_files_split2": "kern_b_split2.o", "obj_files_split3": "kern_b_split3.o"}
    assert doc["split_mode"] == 4 and doc["blockDim"] == 3 and doc["sub_operator_text_size"]["AiCore"] > 0
    members = ar.read_members(str(b))
    assert [m for m, _ in members] == ["kern_b.o", "kern_b_split1.o", "kern_b_split2.o", "kern_b_split3.o"]
    for i, (member, data) in enumerate(members):
        info = objfacts.read_object(member, data=data)
        want = "kern_b_middle" + (f"_split{i}" if i else "")
        assert [s.name for s in info.defined_globals()] == [want]
        assert info.group_count == 0


def test_pack_output_is_deterministic(tmp_path):
    first, _ = build_sub(tmp_path, "helper_a.cpp", "kern_a", block_dim=8)
    data1 = first.read_bytes()
    json1 = (tmp_path / "kern_a" / "kern_a.json").read_text()
    shutil.rmtree(tmp_path / "kern_a")
    second, _ = build_sub(tmp_path, "helper_a.cpp", "kern_a", block_dim=8)
    assert second.read_bytes() == data1
    assert (tmp_path / "kern_a" / "kern_a.json").read_text() == json1
    assert str(tmp_path).encode() not in data1


def test_unresolved_symbol_names_the_object_and_symbol_and_writes_nothing(tmp_path):
    a, doc = build_sub(tmp_path, "helper_a.cpp", "kern_a", block_dim=8)
    entry = compile_entry(tmp_path, "fused_mix_aiv", "kern_a_middle(0); not_defined_anywhere(1);")
    out = tmp_path / "fused.o"
    out.write_bytes(b"previous good output")
    inputs = [link.LinkInput("entry fused_mix_aiv.o", str(entry), entry_symbol="fused_mix_aiv"),
              link.LinkInput(f"{a}(kern_a.o)", str(a), "kern_a.o")]
    with pytest.raises(SkError) as err:
        link.link(tools(), inputs, entry_symbols=["fused_mix_aiv"], out_obj=str(out),
                  out_json=str(tmp_path / "fused.json"), meta={}, allowed_undefined={"get_para_base"}, allow_prefixes=("sk_twin_trace",))
    assert "not_defined_anywhere" in str(err.value) and "fused_mix_aiv.o" in str(err.value)
    assert out.read_bytes() == b"previous good output"
    assert not (tmp_path / "fused.json").exists()
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".sk-")]


def test_unresolved_symbol_comes_before_long_object_names(tmp_path):
    """Each split copy of a sub-kernel is a member named after a long Bazel path: the message names the
    symbol first and each object once, so the part kept when it is cut for length still has them."""
    a, _ = build_sub(tmp_path, "helper_a.cpp", "kern_a", block_dim=8)
    entry = compile_entry(tmp_path, "fused_mix_aiv", "kern_a_middle(0); not_defined_anywhere(1);")
    long = "bazel-out/k8-fastbuild/bin/" + "very_long_package_path/" * 30 + "fused_mix_aiv.o"
    inputs = [link.LinkInput(f"{long}(m{i}.o)", str(entry), entry_symbol="fused_mix_aiv") for i in range(1)]
    inputs.append(link.LinkInput(f"{a}(kern_a.o)", str(a), "kern_a.o"))
    with pytest.raises(SkError) as err:
        link.link(tools(), inputs, entry_symbols=["fused_mix_aiv"], out_obj=str(tmp_path / "o.o"),
                  allowed_undefined={"get_para_base"}, allow_prefixes=("sk_twin_trace",))
    assert str(err.value).index("not_defined_anywhere") < 100


def test_the_c_math_library_and_the_heap_are_the_twins(tmp_path):
    """Device code calls scalar sqrt/exp (CANN's norms: `1 / sqrt(mean + eps)`); the twin takes them from libm,
    and its own API headers' std::vector scratch (SoftMax) from the C++ runtime."""
    a, _ = build_sub(tmp_path, "helper_a.cpp", "kern_a", block_dim=8)
    entry = compile_entry(tmp_path, "fused_mix_aiv", "kern_a_middle(0); sqrt(2); expf(1); _Znwm(8); _ZdlPvm(0);")
    inputs = [link.LinkInput("entry", str(entry), entry_symbol="fused_mix_aiv"),
              link.LinkInput(f"{a}(kern_a.o)", str(a), "kern_a.o")]
    result = link.link(tools(), inputs, entry_symbols=["fused_mix_aiv"], out_obj=str(tmp_path / "o.o"),
                       allowed_undefined={"get_para_base"}, allow_prefixes=("sk_twin_",))
    assert {"sqrt", "expf", "_Znwm", "_ZdlPvm"} <= set(result.undefined)


def test_missing_entry_symbol_is_reported(tmp_path):
    a, _ = build_sub(tmp_path, "helper_a.cpp", "kern_a", block_dim=8)
    entry = compile_entry(tmp_path, "fused_mix_aiv", "kern_a_middle(0);")
    with pytest.raises(SkError, match="does not define its entry symbol"):
        link.link(tools(), [link.LinkInput("entry", str(entry), entry_symbol="fused_mix_aic")],
                  entry_symbols=["fused_mix_aic"], out_obj=str(tmp_path / "o.o"))


def test_duplicate_sub_kernel_functions_fail_with_the_linker_message(tmp_path):
    a, _ = build_sub(tmp_path, "helper_a.cpp", "kern_a", block_dim=8)
    copy = tmp_path / "again.o"
    shutil.copy(a, copy)
    entry = compile_entry(tmp_path, "fused_mix_aiv", "kern_a_middle(0);")
    inputs = [link.LinkInput("entry", str(entry), entry_symbol="fused_mix_aiv"),
              link.LinkInput("a", str(a), "kern_a.o"), link.LinkInput("again", str(copy), "kern_a.o")]
    with pytest.raises(SkError, match="kern_a_middle"):
        link.link(tools(), inputs, entry_symbols=["fused_mix_aiv"], out_obj=str(tmp_path / "o.o"),
                  allowed_undefined={"get_para_base"}, allow_prefixes=("sk_twin_trace",))


def test_objects_with_more_globals_than_the_plan_names_are_still_localised(tmp_path):
    a, _ = build_sub(tmp_path, "helper_a.cpp", "kern_a", block_dim=8)
    raw = tmp_path / "kern_a" / "k.o"  # the unpacked kernel object: helper and kern_a are global
    entry = compile_entry(tmp_path, "fused_mix_aiv", "kern_a_middle(0);")
    inputs = [link.LinkInput("entry", str(entry), entry_symbol="fused_mix_aiv"),
              link.LinkInput("a", str(a), "kern_a.o", symbol="kern_a_middle"),
              link.LinkInput("raw", str(raw), symbol="kern_a")]
    result = link.link(tools(), inputs, entry_symbols=["fused_mix_aiv"], out_obj=str(tmp_path / "o.o"),
                       allowed_undefined={"get_para_base"}, allow_prefixes=("sk_twin_",))
    assert result.defined_globals == ("fused_mix_aiv",)


def test_hash_size_only_for_gnu_ld(tmp_path):
    fake = tmp_path / "ld.lld"
    fake.write_text("#!/bin/sh\necho 'LLD 16.0.6 (compatible with GNU linkers)'\n")
    fake.chmod(0o755)
    version = subprocess.run([LD, "--version"], capture_output=True, text=True).stdout
    assert link._is_gnu_ld(tools()) == version.startswith("GNU ld ")
    assert not link._is_gnu_ld(toolargv.Tools("host", linker=str(fake)))
    assert not link._is_gnu_ld(toolargv.Tools("host", linker=str(tmp_path / "missing")))
    assert not link._is_gnu_ld(toolargv.Tools("cann", linker=LD))


# ---------------------------------------------------------------- the JSON text around the digest

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from sk.base import jsontext  # noqa: E402

DIGEST = "0123456789abcdef" * 4
SCALARS = (st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True, allow_infinity=True) | st.text())
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
                      max_leaves=20)


def _spliced(meta):
    head, tail = link._meta_text_around_sha256(meta)
    return head + json.dumps(DIGEST) + tail


def _written_before(meta):
    """What `sk link` wrote before the text was split around the digest."""
    doc = dict(meta or {})
    doc["sha256"] = DIGEST
    return jsontext.dumps(doc, indent=2) + "\n"


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(), VALUES, max_size=6), st.integers(0, 6), st.booleans())
def test_json_text_around_the_digest_is_the_whole_documents(meta, at, has_sha):
    if has_sha:  # "sha256" already there, at any place, with any value
        items = list(meta.items())
        items.insert(min(at, len(items)), ("sha256", meta.get("x", "")))
        meta = dict(items)
    assert _spliced(meta) == _written_before(meta)


@pytest.mark.parametrize("meta", [None, {}, {"sha256": ""}, {"sha256": None, "a": 1}, {"a": {"sha256": 1}},
                                  {"a": float("nan"), "b": [float("inf")]}, {"é": "\u2603", "sha256": "x", "z": []}])
def test_json_text_around_the_digest_odd_documents(meta):
    assert _spliced(meta) == _written_before(meta)


def test_json_text_around_the_digest_of_a_kernel_json():
    # The shape sk gen writes for a SuperKernel (sk.render.meta.kernel_json), sub-op lists included.
    from sk.render.meta import kernel_json
    from sk.tests.scenario import scenario_plan
    import tempfile

    ops = [("a", {"kernel_type": "KERNEL_TYPE_AIC_ONLY"}, {}), ("b", {"kernel_type": "KERNEL_TYPE_MIX_AIC_1_2"}, {})]
    with tempfile.TemporaryDirectory() as tmp:
        plan = scenario_plan(os.path.join(tmp, "in"), ops, options="split-mode=4")
        meta = json.loads(jsontext.dumps(kernel_json(plan), indent=2))
    assert "SuperkernelInfo" in meta and "sha256" not in meta
    assert _spliced(meta) == _written_before(meta)
