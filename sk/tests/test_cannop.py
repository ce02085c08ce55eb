"""CANN-style operators (docs/cann-ops.md): binary-config defines, template arguments and their tiling
keys, the .npy reader/writer, tensor files and reference comparisons of the data file.

The key encoding is checked against hand-computed bit fields and against the twin's host-side
GET_TPL_TILING_KEY compiled with g++; the .npy code against numpy's own files.
"""

import io
import json
import os
import subprocess

import numpy as np
import pytest

from sk.base.errors import SkError
from sk.binfmt import npy
from sk.engine import cannop
from sk.tests.harness import HOST_TOOLS, REPO, needs_host_tools
from sk.twin import model as model_mod
from sk.twin import reference

INCLUDE = os.path.join(REPO, "sk", "runtime", "include")
EXAMPLE = os.path.join(REPO, "examples", "cann_ops")


def _pre(tmp_path, text: str) -> str:
    """The -DASCENDC_TPL_PRE preprocess of `text` with the twin's template_argument.h."""
    src = tmp_path / "k.cpp"
    src.write_text('#include "ascendc/host_api/tiling/template_argument.h"\n' + text)
    return subprocess.run([HOST_TOOLS["g++"], "-E", "-x", "c++", cannop.TPL_PRE_DEFINE, f"-I{INCLUDE}", str(src)],
                          check=True, capture_output=True, text=True).stdout


DECL = """
ASCENDC_TPL_ARGS_DECL(Foo,
    ASCENDC_TPL_UINT_DECL(m, 2, ASCENDC_TPL_UI_MIX, 1, 0, 1, 7),
    ASCENDC_TPL_BOOL_DECL(b, 0, 1),
    ASCENDC_TPL_DTYPE_DECL(d, 0, 1, 27),
    ASCENDC_TPL_UINT_DECL(r, ASCENDC_TPL_4_BW, ASCENDC_TPL_UI_RANGE, 2, 0, 2, 5, 6));
ASCENDC_TPL_SEL(
    ASCENDC_TPL_ARGS_SEL(ASCENDC_TPL_UINT_SEL(m, ASCENDC_TPL_UI_LIST, 7), ASCENDC_TPL_BOOL_SEL(b, 0, 1),
                         ASCENDC_TPL_DTYPE_SEL(d, 27), ASCENDC_TPL_UINT_SEL(r, ASCENDC_TPL_UI_LIST, 6)),
    ASCENDC_TPL_ARGS_SEL(ASCENDC_TPL_KERNEL_TYPE_SEL(ASCENDC_TPL_AIV_ONLY),
                         ASCENDC_TPL_UINT_SEL(m, ASCENDC_TPL_UI_RANGE, 1, 0, 1), ASCENDC_TPL_BOOL_SEL(b, 1),
                         ASCENDC_TPL_DTYPE_SEL(d, 0), ASCENDC_TPL_UINT_SEL(r, ASCENDC_TPL_UI_LIST, 0)));
"""


@needs_host_tools
def test_decl_and_sel_read_from_the_pre_pass(tmp_path):
    tpl = cannop.parse_template_args(_pre(tmp_path, DECL), "k.cpp")
    assert tpl.op == "Foo"
    assert tpl.decls == (cannop.TplArg("m", "UINT", 2, (0, 1, 7)), cannop.TplArg("b", "BOOL", 1, (0, 1)),
                         cannop.TplArg("d", "DTYPE", 8, (0, 1, 27)), cannop.TplArg("r", "UINT", 4, (0, 1, 2, 5, 6)))
    # Bits: m (index in [0, 1, 7]) 0-1, b 2, d 3-10, r (index in [0, 1, 2, 5, 6]) 11-14.
    keys = [i.key for i in cannop.selected_instances(tpl)]
    want = sorted({2 | (b << 2) | (27 << 3) | (4 << 11) for b in (0, 1)} | {m | (1 << 2) for m in (0, 1)})
    assert keys == want
    assert cannop.encode_key(tpl.decls, {"m": 7, "b": 1, "d": 27, "r": 6}) == 2 | 4 | (27 << 3) | (4 << 11)
    assert cannop.template_param_text(tpl.decls, {"m": 7, "b": 1, "d": 27, "r": 6}) == "7, 1, 27, 6"


@needs_host_tools
def test_a_value_that_is_no_integer_is_left_out_as_the_adk_does(tmp_path):
    # UNDEFINED_VALUE is a macro the source never defines (ops-nn's clipped_swiglu_grad has one such SEL value):
    # the ADK's template_tiling.py logs it as invalid and keeps the other values; so does the reader, and says so.
    text = """
ASCENDC_TPL_ARGS_DECL(Bar, ASCENDC_TPL_UINT_DECL(g, 1, ASCENDC_TPL_UI_LIST, 0, 1));
ASCENDC_TPL_SEL(ASCENDC_TPL_ARGS_SEL(ASCENDC_TPL_UINT_SEL(g, ASCENDC_TPL_UI_LIST, 0, 1, UNDEFINED_VALUE)));
"""
    tpl = cannop.parse_template_args(_pre(tmp_path, text), "k.cpp")
    assert tpl.decls == (cannop.TplArg("g", "UINT", 1, (0, 1)),)
    assert [dict(i.args)["g"] for i in cannop.selected_instances(tpl)] == [0, 1]
    assert tpl.dropped == ("UNDEFINED_VALUE",)
    assert cannop.parse_template_args(_pre(tmp_path, DECL), "k.cpp").dropped == ()


# An 18-value UINT list in 5 bits and a BOOL, three selections (one with another kernel type), as
# ops-math's ArgMaxWithValue declares them (our own names and values). asc-devkit's own op compile,
# run with recording tools (/tmp/adkcmp/compare.py, docs/cann-ops.md §5), built exactly these keys.
SCH = ", ".join(str(v) for v in range(100, 118))
WIDE = f"""
ASCENDC_TPL_ARGS_DECL(Wide, ASCENDC_TPL_UINT_DECL(sch, 5, ASCENDC_TPL_UI_LIST, {SCH}), ASCENDC_TPL_BOOL_DECL(g, 0, 1));
ASCENDC_TPL_SEL(
    ASCENDC_TPL_ARGS_SEL(ASCENDC_TPL_KERNEL_TYPE_SEL(ASCENDC_TPL_AIV_ONLY),
        ASCENDC_TPL_UINT_SEL(sch, ASCENDC_TPL_UI_LIST, 100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 112, 113,
                             114, 116, 117),
        ASCENDC_TPL_BOOL_SEL(g, 0)),
    ASCENDC_TPL_ARGS_SEL(ASCENDC_TPL_KERNEL_TYPE_SEL(ASCENDC_TPL_AIV_ONLY),
        ASCENDC_TPL_UINT_SEL(sch, ASCENDC_TPL_UI_LIST, 102, 103, 104, 105, 106, 107, 108, 109),
        ASCENDC_TPL_BOOL_SEL(g, 1)),
    ASCENDC_TPL_ARGS_SEL(ASCENDC_TPL_KERNEL_TYPE_SEL(ASCENDC_TPL_MIX_AIV_1_0),
        ASCENDC_TPL_UINT_SEL(sch, ASCENDC_TPL_UI_LIST, 110, 111, 115), ASCENDC_TPL_BOOL_SEL(g, 0)), );
"""


@needs_host_tools
def test_keys_measured_against_the_adk(tmp_path):
    tpl = cannop.parse_template_args(_pre(tmp_path, WIDE), "k.cpp")
    keys = [i.key for i in cannop.selected_instances(tpl)]
    assert keys == list(range(18)) + list(range(34, 42))  # the ADK's measured key list
    # TEMPLATE_PARAMS of key 35 (the ADK's generated file): the value, not the index
    args = dict(next(i.args for i in cannop.selected_instances(tpl) if i.key == 35))
    assert cannop.template_param_text(tpl.decls, args) == "103, 1"


@needs_host_tools
def test_a_combination_two_selections_select_is_refused(tmp_path):
    text = WIDE.replace("ASCENDC_TPL_UI_LIST, 110, 111, 115), ASCENDC_TPL_BOOL_SEL(g, 0)",
                        "ASCENDC_TPL_UI_LIST, 110, 111, 100), ASCENDC_TPL_BOOL_SEL(g, 0)")
    tpl = cannop.parse_template_args(_pre(tmp_path, text), "k.cpp")
    with pytest.raises(SkError, match="ASCENDC_TPL_ARGS_SEL 3 of Wide selects a combination") as e:
        cannop.selected_instances(tpl)
    assert "sch=100,g=0" in str(e.value)


@needs_host_tools
def test_keys_equal_the_host_side_encoder(tmp_path):
    """The kernel-side key (sk) is the one host tiling code sets with GET_TPL_TILING_KEY."""
    src = tmp_path / "host.cpp"
    src.write_text('#include "ascendc/host_api/tiling/template_argument.h"\n#include <cstdio>\n'
                   + DECL.split("ASCENDC_TPL_SEL")[0]
                   + "int main() { printf(\"%llu %llu\\n\", (unsigned long long)GET_TPL_TILING_KEY(7, 1, 27, 6),"
                     " (unsigned long long)GET_TPL_TILING_KEY(1, 0, 1, 2)); }\n")
    exe = tmp_path / "host"
    subprocess.run([HOST_TOOLS["g++"], "-std=c++17", f"-I{INCLUDE}", str(src), "-o", str(exe)], check=True)
    got = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout.split()
    tpl = cannop.parse_template_args(_pre(tmp_path, DECL), "k.cpp")
    assert [int(x) for x in got] == [cannop.encode_key(tpl.decls, {"m": 7, "b": 1, "d": 27, "r": 6}),
                                     cannop.encode_key(tpl.decls, {"m": 1, "b": 0, "d": 1, "r": 2})]


@needs_host_tools
def test_example_op_keys():
    pre = subprocess.run([HOST_TOOLS["g++"], "-E", "-x", "c++", cannop.TPL_PRE_DEFINE, f"-I{INCLUDE}",
                          os.path.join(EXAMPLE, "scaled_add", "op_kernel", "scaled_add_tiling_key.h")],
                         check=True, capture_output=True, text=True).stdout
    tpl = cannop.parse_template_args(pre, "scaled_add_tiling_key.h")
    assert [(i.key, i.args) for i in cannop.selected_instances(tpl)] == [
        (0, (("mode", 0), ("useRelu", 0))), (2, (("mode", 0), ("useRelu", 1))), (3, (("mode", 1), ("useRelu", 1)))]


def test_bad_template_arguments():
    decls = (cannop.TplArg("m", "UINT", 1, (0, 1)), cannop.TplArg("b", "BOOL", 1, (0, 1)))
    with pytest.raises(SkError, match="'m' has a value its DECL does not declare"):
        cannop.encode_key(decls, {"m": 2, "b": 0})
    with pytest.raises(SkError, match="no value for template argument 'b'"):
        cannop.encode_key(decls, {"m": 1})
    with pytest.raises(SkError, match="does not declare.*got 'x'"):
        cannop.encode_key(decls, {"m": 1, "b": 0, "x": 1})
    with pytest.raises(SkError, match="bit width of ASCENDC_TPL_UINT_DECL m cannot hold"):
        cannop.parse_template_args("@@ASCENDC_TPL_ARGS_DECL_F@@ = {@@ASCENDC_TPL_UINT_DECL_m@@ = {1, 1, 0, 1, 2}}", "k")
    with pytest.raises(SkError, match="name=value pairs"):
        cannop.parse_combination("mode", "BUILD")


# A kernel without template arguments that branches on TILING_KEY_IS (most of ops-nn's): the ADK builds
# one binary per key it names; the twin's sk_twin_tiling.h marks them in the -DASCENDC_TPL_PRE pass.
KEYED = """
#include "kernel_tiling/kernel_tiling.h"
#define KEY_HALF 1
void k() {
  if (TILING_KEY_IS(KEY_HALF)) {} else if (TILING_KEY_IS(2UL)) {} else if (TILING_KEY_LIST(10, 1 << 4)) {}
}
"""


@needs_host_tools
def test_tiling_key_branches_read_from_the_pre_pass(tmp_path):
    assert cannop.tiling_key_branches(_pre(tmp_path, KEYED)) == (1, 2, 10, 16)
    assert cannop.tiling_key_branches(_pre(tmp_path, "void k() {}")) == ()
    assert cannop.tiling_key_branches(_pre(tmp_path, '#include "kernel_tiling/kernel_tiling.h"\n'
                                                     "int n; bool f() { return TILING_KEY_IS(n); }")) is None


def test_a_plain_kernels_tiling_key_is_checked_against_its_branches():
    from sk.toolflow.cannbuild import pick_instance

    assert pick_instance(None, "tiling_key=2", "BUILD", branches=(1, 2)) == (2, {})
    assert pick_instance(None, "", "BUILD", branches=()) == (0, {})
    assert pick_instance(None, "tiling_key=7", "BUILD", branches=None) == (7, {})
    # No key for a kernel whose branches do not take 0: it would run and write nothing.
    with pytest.raises(SkError, match=r"names no tiling key \(got '\(none\)'\)\. Name one of tiling_key=1, tiling_key=2"):
        pick_instance(None, "", "BUILD", branches=(1, 2))
    with pytest.raises(SkError, match=r"names a key no TILING_KEY_IS branch.*'tiling_key=3'"):
        pick_instance(None, "tiling_key=3", "BUILD", branches=(1, 2))
    with pytest.raises(SkError, match=r"takes no template arguments.*Name one of tiling_key=1 "):
        pick_instance(None, "mode=1", "BUILD", branches=(1,))


def _config(tmp_path, doc) -> str:
    path = tmp_path / "op_binary.json"
    path.write_text(json.dumps(doc))
    return str(path)


def test_variant_defines(tmp_path):
    p = lambda n, dt, fmt="ND": {"name": n, "dtype": dt, "format": fmt, "paramType": "required"}
    path = _config(tmp_path, {"op_type": "Op", "op_list": [
        {"bin_filename": "Op_1", "inputs": [p("x", "bfloat16"), None, [p("xs", "int8"), p("xs", "int8")], []],
         "outputs": [p("x", "bfloat16"), p("idx", "int64", "NCHW")]}]})
    assert cannop.binary_variant_defines(path, "Op_1") == cannop.binary_variant_defines(path, "0") == [
        "-DDTYPE_X=bfloat16_t", "-DORIG_DTYPE_X=DT_BF16", "-DFORMAT_X=FORMAT_ND",
        "-DDTYPE_XS=int8_t", "-DORIG_DTYPE_XS=DT_INT8", "-DFORMAT_XS=FORMAT_ND",
        "-DDTYPE_X_REF=bfloat16_t", "-DORIG_DTYPE_X_REF=DT_BF16", "-DFORMAT_X_REF=FORMAT_ND",
        "-DDTYPE_IDX=int64_t", "-DORIG_DTYPE_IDX=DT_INT64", "-DFORMAT_IDX=FORMAT_NCHW"]
    example = os.path.join(EXAMPLE, "scaled_add", "op_host", "config", "ascend910b", "scaled_add_binary.json")
    assert cannop.binary_variant_defines(example, "ScaledAdd_93d7b415")[:3] == [
        "-DDTYPE_X=half", "-DORIG_DTYPE_X=DT_FLOAT16", "-DFORMAT_X=FORMAT_ND"]


def test_bad_binary_configs(tmp_path):
    with pytest.raises(SkError, match=r"no binary variant.*got '3'.*0 \(A\)"):
        cannop.binary_variant_defines(_config(tmp_path, {"op_list": [{"bin_filename": "A", "inputs": []}]}), "3")
    with pytest.raises(SkError, match=r"op_list\[0\].inputs\[0\].*dtype the ADK cannot compile.*got 'qint8'"):
        cannop.load_binary_config(_config(tmp_path, {"op_list": [{"inputs": [{"name": "x", "dtype": "qint8"}]}]}))
    with pytest.raises(SkError, match="non-empty \"op_list\""):
        cannop.load_binary_config(_config(tmp_path, {"op_type": "A"}))
    (tmp_path / "broken.json").write_text("{")
    with pytest.raises(SkError, match="not JSON"):
        cannop.load_binary_config(str(tmp_path / "broken.json"))


def test_a_repeated_key_is_read_as_the_adk_reads_it_only_when_told(tmp_path):
    """ops-nn's foreach_reciprocal config names bin_filename twice in one variant; the ADK's Python json keeps the
    last. With warn the config reads the same way and warn hears file, line and key; without it, refused."""
    path = tmp_path / "op_binary.json"
    path.write_text('{"op_list": [\n {"bin_filename": "First",\n  "bin_filename": "Last", "inputs": []},\n'
                    ' {"bin_filename": "Other", "inputs": []}]}')
    with pytest.raises(SkError, match=r"not JSON: key 'bin_filename' appears twice in one object: line 3"):
        cannop.load_binary_config(str(path))
    heard = []
    variants = cannop.load_binary_config(str(path), warn=heard.append)
    assert [v.bin_filename for v in variants] == ["Last", "Other"]
    assert heard == [f"{path}:3: key 'bin_filename' appears twice in one object; read as the ADK reads it "
                     "(Python json: the last value wins)"]


def test_jsonload_keeps_the_last_of_repeated_keys_only_when_asked():
    from sk.base import jsonload
    text = '{"a": 1,\n "b": {"x": 1, "s": "\\"x\\": 9",\n "x": 2},\n "a": 3, "c": [{"a": 1}, {"a": 2}]}'
    found = []
    assert jsonload.loads(text, duplicates=found) == {"a": 3, "b": {"x": 2, "s": '"x": 9'}, "c": [{"a": 1}, {"a": 2}]}
    assert found == ["x", "a"]  # inner objects first, as the parser closes them
    assert jsonload.duplicate_lines(text) == [("x", 3), ("a", 4)]  # in text order; a key inside a string is none
    with pytest.raises(ValueError, match="key 'x' appears twice in one object: line 3"):
        jsonload.loads(text)


def _op(tmp_path, name, files):
    for rel, text in files.items():
        (tmp_path / name / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name / rel).write_text(text)
    return str(tmp_path / name)


def test_kernel_source_as_the_op_build_finds_it(tmp_path):
    # Nothing said: the folder's name (the ADK's default, the op type in snake case, is that in CANN's repos).
    assert cannop.kernel_source(_op(tmp_path, "plain", {"op_host/plain_def.cpp": "this->Input(\"x\");"}),
                                "ascend910b") == cannop.KernelSource("plain.cpp", "plain")
    # opFile/opInterface of the config AddConfig adds for the SoC, as it was when added (mat_mul_v3 sets opFile
    # on the same config later, for another SoC); another SoC's config says otherwise.
    d = _op(tmp_path, "two", {"op_host/two_def.cpp": (
        "OpAICoreConfig cfg;\ncfg.DynamicShapeSupportFlag(true)\n    .ExtendCfgInfo(\"opInterface.value\", \"two_k\");\n"
        "this->AICore().AddConfig(\"ascend910b\", cfg);\n"
        "// cfg.ExtendCfgInfo(\"opFile.value\", \"commented_out\");\n"
        "cfg.ExtendCfgInfo(\"opFile.value\", \"two_apt\");\nthis->AICore().AddConfig(\"ascend950\", cfg);\n")})
    assert cannop.kernel_source(d, "ascend910b") == cannop.KernelSource("two.cpp", "two_k")
    assert cannop.kernel_source(d, "ascend950") == cannop.KernelSource("two_apt.cpp", "two_k")
    # Configs added for SoCs held in a variable (conv3d_v2): what every config says, when they agree.
    d = _op(tmp_path, "loop", {"op_host/loop_def.cpp": (
        "OpAICoreConfig a;\na.ExtendCfgInfo(\"opFile.value\", \"loop_k\");\n"
        "for (auto v : socs) { this->AICore().AddConfig(v, a); }\n")})
    assert cannop.kernel_source(d, "ascend910b") == cannop.KernelSource("loop_k.cpp", "loop")
    # The ops repository's add_kernel_sources(KERNEL_SRC ...) wins for the SoCs it names (kernelSrc.value).
    d = _op(tmp_path, "cm", {
        "op_host/cm_def.cpp": "OpAICoreConfig c;\nc.ExtendCfgInfo(\"opFile.value\", \"cm_def\");\n"
                              "this->AICore().AddConfig(\"ascend910b\", c);\nthis->AICore().AddConfig(\"ascend950\", c);",
        "op_kernel/CMakeLists.txt": "# add_kernel_sources(KERNEL_SRC old.cpp)\n"
                                    "add_kernel_sources(\n  KERNEL_SRC cm_910b.cpp\n  COMPUTE_UNITS ascend910b ascend910_93\n)\n"})
    assert cannop.kernel_source(d, "ascend910b") == cannop.KernelSource("cm_910b.cpp", "cm")
    assert cannop.kernel_source(d, "ascend950") == cannop.KernelSource("cm_def.cpp", "cm")


# ---------------------------------------------------------------- .npy

@pytest.mark.parametrize("dtype,shape", [("float32", (3, 4)), ("float16", (5,)), ("int8", (2, 2, 2)),
                                         ("uint8", (7,)), ("int16", (2, 3)), ("int32", (1,)), ("uint32", (4,)),
                                         ("int64", ()), ("bool", (3,)), ("float64", (2, 2))])
def test_npy_against_numpy(dtype, shape):
    a = (np.arange(int(np.prod(shape))) % 7).astype(dtype).reshape(shape)
    buf = io.BytesIO()
    np.save(buf, a)
    assert npy.parse(buf.getvalue()) == (dtype, shape, a.tobytes())
    back = np.load(io.BytesIO(npy.dumps(dtype, shape, a.tobytes())))
    assert back.dtype == a.dtype and back.shape == shape and (back == a).all()


def test_npy_refusals():
    buf = io.BytesIO()
    np.save(buf, np.zeros(3, ">f4"))
    with pytest.raises(npy.NpyError, match="'>f4' is not one sk reads"):
        npy.parse(buf.getvalue())
    buf = io.BytesIO()
    np.save(buf, np.asfortranarray(np.zeros((2, 3), "<f4")))
    with pytest.raises(npy.NpyError, match="Fortran-order"):
        npy.parse(buf.getvalue())
    with pytest.raises(npy.NpyError, match="no \\\\x93NUMPY magic"):
        npy.parse(b"plain text")
    buf = io.BytesIO()
    np.save(buf, np.zeros(4, "<f4"))
    with pytest.raises(npy.NpyError, match="holds 12 data bytes.*says 16"):
        npy.parse(buf.getvalue()[:-4])


# ---------------------------------------------------------------- data files

def _model(tmp_path, tensors, ops_tiling=None):
    (tmp_path / "k.cpp").write_text("")
    doc = {"name": "m", "tensors": tensors,
           "kernels": {"k": {"src": "k.cpp", "kernel_type": "AIV_ONLY", "block_dim": 1, "inputs": ["x"],
                             "outputs": ["y"], "workspace": True, "tiling": True}},
           "ops": [{"kernel": "k", "bind": {"x": "x", "y": "y"},
                    "tiling": ops_tiling or {"dtype": "int32", "values": [1]}}]}
    return model_mod.from_dict(doc, str(tmp_path / "model.json"))


def test_tensor_from_npy_and_raw(tmp_path):
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.save(tmp_path / "x.npy", x)
    (tmp_path / "y.bin").write_bytes(np.arange(6, dtype=np.float32).tobytes())
    (tmp_path / "t.bin").write_bytes(b"\x01\x02\x03")
    m = _model(tmp_path, {"x": {"dtype": "float32", "shape": [2, 3], "file": "x.npy"},
                          "y": {"dtype": "float32", "shape": [6], "file": "y.bin"}}, {"file": "t.bin"})
    assert m.tensors["x"].initial_bytes(0) == x.tobytes()
    assert m.tensors["y"].initial_bytes(0) == x.tobytes()
    assert m.ops[0].tiling == b"\x01\x02\x03"


@pytest.mark.parametrize("content,field,message", [
    (lambda p: np.save(p, np.zeros((2, 3), np.float64)), "x.npy", r"holds float64 \[2, 3\], the tensor is float32 \[2, 3\]"),
    (lambda p: np.save(p, np.zeros((3, 2), np.float32)), "x.npy", r"holds float32 \[3, 2\], the tensor is float32 \[2, 3\]"),
    (lambda p: open(p, "wb").write(b"not npy at all"), "x.npy", r"not a readable .npy file"),
    (lambda p: open(p, "wb").write(b"\0" * 20), "x.bin", r"must hold the tensor's 24 bytes.*it holds 20"),
])
def test_bad_tensor_files_name_tensor_and_file(tmp_path, content, field, message):
    content(str(tmp_path / field))
    m = _model(tmp_path, {"x": {"dtype": "float32", "shape": [2, 3], "file": field},
                          "y": {"dtype": "float32", "shape": [6]}})
    with pytest.raises(SkError, match=message) as err:
        m.tensors["x"].initial_bytes(0)
    assert f"tensor x: file {field}:" in str(err.value).lower()


def test_bad_tensor_fields(tmp_path):
    with pytest.raises(SkError, match="from init or from a file, not both"):
        _model(tmp_path, {"x": {"dtype": "float32", "shape": [2], "file": "x.npy", "init": "ones"},
                          "y": {"dtype": "float32", "shape": [2]}})
    with pytest.raises(SkError, match="applies to the comparison with expected"):
        _model(tmp_path, {"x": {"dtype": "float32", "shape": [2]}, "y": {"dtype": "float32", "shape": [2], "rtol": 1}})
    with pytest.raises(SkError, match="finite number >= 0"):
        _model(tmp_path, {"x": {"dtype": "float32", "shape": [2]},
                          "y": {"dtype": "float32", "shape": [2], "expected": "y.npy", "atol": -1}})


def test_reference_comparison(tmp_path):
    want = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    np.save(tmp_path / "y.npy", want)
    m = _model(tmp_path, {"x": {"dtype": "float32", "shape": [2, 2]},
                          "y": {"dtype": "float32", "shape": [2, 2], "expected": "y.npy", "rtol": 0.01}})
    t = m.tensors["y"]
    assert t.tolerance == (0.01, 1e-5)
    assert reference.compare(t, (want * 1.005).tobytes(), "fused run") is None
    got = want.copy()
    got[1, 0] = 3.5
    got[1, 1] = 9.0
    mm = reference.compare(t, got.tobytes(), "fused run")
    assert (mm.tensor, mm.index, mm.got, mm.want, mm.bad, mm.total) == ("y", (1, 0), 3.5, 3.0, 2, 4)
    assert reference.line(mm).startswith("REFERENCE MISMATCH y (fused run): at index [1, 0] got 3.5, expected 3.0")
    out = reference.write_outputs(m, {"fused": {"y": got.tobytes()}}, str(tmp_path / "out"))
    assert out == [str(tmp_path / "out" / "fused" / "y.npy")]
    assert (np.load(out[0]) == got).all()


def test_bool_and_wide_tensors_from_npy_compared_and_written(tmp_path):
    """bool masks (CANN's ScaledMaskedSoftmaxV2 takes one), uint16/uint64/float64: read from numpy's .npy,
    a bool compared as its byte (a kernel writing 2 for true is a mismatch), written back as numpy reads them."""
    mask = np.array([[True, False, True], [False, False, True]])
    wide = {"uint16": np.array([1, 65535], np.uint16), "uint64": np.array([1, 2 ** 64 - 1], np.uint64),
            "float64": np.array([0.1, -2.5])}
    np.save(tmp_path / "m.npy", mask)
    tensors = {"x": {"dtype": "bool", "shape": [2, 3], "file": "m.npy"},
               "y": {"dtype": "bool", "shape": [2, 3], "expected": "m.npy"}}
    for name, arr in wide.items():
        np.save(tmp_path / f"{name}.npy", arr)
        tensors[name] = {"dtype": name, "shape": [2], "file": f"{name}.npy"}
    m = _model(tmp_path, tensors)
    assert m.tensors["x"].initial_bytes(0) == bytes([1, 0, 1, 0, 0, 1])
    for name, arr in wide.items():
        assert m.tensors[name].initial_bytes(0) == arr.tobytes()
    t = m.tensors["y"]
    assert t.tolerance == (0.0, 0.0)
    assert reference.compare(t, bytes([1, 0, 1, 0, 0, 1]), "fused run") is None
    mm = reference.compare(t, bytes([1, 0, 2, 0, 0, 1]), "fused run")
    assert (mm.index, mm.got, mm.want) == ((0, 2), 2, 1)
    out = reference.write_outputs(m, {"fused": {"y": bytes([0, 1, 1, 0, 0, 0])}}, str(tmp_path / "out"))
    assert np.load(out[0]).tolist() == [[False, True, True], [False, False, False]]


def test_tensors_must_have_the_binary_variants_dtypes(tmp_path):
    """A tensor bound to a CANN instance is read as the variant's dtype (-DDTYPE_<P>): another dtype is refused,
    naming the op, the parameter, both dtypes; an absent optional or a dynamic (list) parameter is not checked."""
    p = lambda name, dtype: {"name": name, "dtype": dtype, "format": "ND"}
    (tmp_path / "op_binary.json").write_text(json.dumps({"op_list": [
        {"bin_filename": "Op_f16", "inputs": [p("x", "float16"), None, [p("l", "int8")]], "outputs": [p("y", "float32")]}]}))
    (tmp_path / "k.cpp").write_text("")

    def model(x_dtype, y_dtype):
        doc = {"name": "m", "tensors": {"x": {"dtype": x_dtype, "shape": [8]}, "o": {"dtype": "int64", "shape": [2]},
                                        "l": {"dtype": "int64", "shape": [2]}, "y": {"dtype": y_dtype, "shape": [8]}},
               "kernels": {"k": {"src": "k.cpp", "kernel_type": "AIV_ONLY", "block_dim": 1, "inputs": ["x", "o", "l"],
                                 "outputs": ["y"], "workspace": True, "tiling": True, "cann_kernel": "op",
                                 "binary_config": "op_binary.json", "variant": "0"}},
               "ops": [{"kernel": "k", "bind": {"x": "x", "o": "o", "l": "l", "y": "y"},
                        "tiling": {"dtype": "int32", "values": [1]}}]}
        return model_mod.from_dict(doc, str(tmp_path / "model.json"))

    assert model("float16", "float32").tensors["x"].dtype == "float16"
    with pytest.raises(SkError, match=r"bind\.x: binary variant 0 \(Op_f16\) of k takes float16 for parameter 'x' "
                                      r"\(its 'x'\); tensor x is float32"):
        model("float32", "float32")
    with pytest.raises(SkError, match=r"bind\.y: .*takes float32 for parameter 'y'.*tensor y is float16"):
        model("float16", "float16")


@needs_host_tools
def test_list_instances_of_the_example():
    from sk.toolflow import cannbuild, toolargv

    text = cannbuild.list_instances(toolargv.Tools(toolargv.HOST, compiler=HOST_TOOLS["g++"]),
                                    os.path.join(EXAMPLE, "scaled_add"),
                                    neighbours=[os.path.join(EXAMPLE, "elementwise_common")], include_dirs=[INCLUDE])
    assert '    "float16": "1",  # ScaledAdd_93d7b415: x float16, y float16, z float16' in text
    assert "\n".join(['combinations = {', '    "k0": "mode=0,useRelu=0",  # tiling key 0',
                      '    "k2": "mode=0,useRelu=1",  # tiling key 2',
                      '    "k3": "mode=1,useRelu=1",  # tiling key 3', '},']) in text


@needs_host_tools
def test_datatype_argument_follows_the_variant(tmp_path):
    """ASCENDC_TPL_DATATYPE_DECL(T, C_DT_FLOAT, C_DT_FLOAT16, ASCENDC_TPL_INPUT(0)): the argument is the
    variant's dtype of input 0 (ge::DataType 0 or 1, 8 bits), the kernel's template parameter its type."""
    from sk.engine import kernel_types
    from sk.toolflow import cannbuild, subkernel, toolargv

    (tmp_path / "op.cpp").write_text("""
#include "kernel_operator.h"
#include "ascendc/host_api/tiling/template_argument.h"
ASCENDC_TPL_ARGS_DECL(Op, ASCENDC_TPL_DATATYPE_DECL(T, C_DT_FLOAT, C_DT_FLOAT16, ASCENDC_TPL_INPUT(0)),
                      ASCENDC_TPL_BOOL_DECL(neg, 0, 1));
ASCENDC_TPL_SEL(ASCENDC_TPL_ARGS_SEL(ASCENDC_TPL_DATATYPE_SEL(T, C_DT_FLOAT), ASCENDC_TPL_BOOL_SEL(neg, 0, 1)),
                ASCENDC_TPL_ARGS_SEL(ASCENDC_TPL_DATATYPE_SEL(T, C_DT_FLOAT16), ASCENDC_TPL_BOOL_SEL(neg, 1)));
template <typename T, bool neg>
__global__ __aicore__ void op(GM_ADDR x, GM_ADDR workspace, GM_ADDR tiling) {
    static_assert(sizeof(T) == 2 && neg, "the float16 variant with neg=1");
}
""")
    p = {"name": "x", "dtype": "float16", "format": "ND"}
    config = _config(tmp_path, {"op_list": [{"inputs": [dict(p, dtype="float32")]}, {"inputs": [p]}]})
    tools = toolargv.Tools(toolargv.HOST, compiler=HOST_TOOLS["g++"])
    inst = cannbuild.CannInstance("op", config, "1", "", ("x", "workspace", "tiling"))
    ran = subkernel.compile_source(tools, str(tmp_path / "op.cpp"), str(tmp_path / "op.o"),
                                   kt=kernel_types.lookup("AIV_ONLY", "k"), block_dim=1, options=None, plain=True,
                                   include_dirs=[INCLUDE], entry="op_f16", cann=inst)
    assert "-DTILING_KEY_VAR=257UL" in ran[-1]  # T = 1 (DT_FLOAT16) in bits 0-7, neg in bit 8: 1 | 1 << 8
    with pytest.raises(SkError, match="follows the binary variant's dtype.*got 0"):
        subkernel.compile_source(tools, str(tmp_path / "op.cpp"), str(tmp_path / "op.o"),
                                 kt=kernel_types.lookup("AIV_ONLY", "k"), block_dim=1, options=None, plain=True,
                                 include_dirs=[INCLUDE], entry="op_f16", cann=inst._replace(combination="T=0,neg=1"))


@needs_host_tools
def test_native_format_argument_is_a_dataformat(tmp_path):
    """ASCENDC_TPL_FORMAT_DECL with C_FORMAT_* names is the ADK's DATAFORMAT: ge::Format numbers (ND 2,
    FRACTAL_NZ 29), 8 bits, by value; with plain numbers it stays a FORMAT argument."""
    tpl = cannop.parse_template_args(_pre(tmp_path, """
ASCENDC_TPL_ARGS_DECL(Fmt, ASCENDC_TPL_FORMAT_DECL(f, C_FORMAT_ND, C_FORMAT_FRACTAL_NZ),
                      ASCENDC_TPL_FORMAT_DECL(g, 0, 3));
ASCENDC_TPL_SEL(ASCENDC_TPL_ARGS_SEL(ASCENDC_TPL_FORMAT_SEL(f, C_FORMAT_FRACTAL_NZ), ASCENDC_TPL_FORMAT_SEL(g, 3)));
"""), "k.cpp")
    assert tpl.decls == (cannop.TplArg("f", "DATAFORMAT", 8, (2, 29)), cannop.TplArg("g", "FORMAT", 8, (0, 3)))
    assert [i.key for i in cannop.selected_instances(tpl)] == [29 | 3 << 8]
    assert cannop.template_param_text(tpl.decls, {"f": 29, "g": 3}) == "29, 3"
    # The host's GET_TPL_TILING_KEY (the twin's template_argument.h) encodes the ge::Format number alike.
    src = tmp_path / "host.cpp"
    src.write_text('#include "ascendc/host_api/tiling/template_argument.h"\n#include <cstdio>\n'
                   "ASCENDC_TPL_ARGS_DECL(Fmt, ASCENDC_TPL_FORMAT_DECL(f, C_FORMAT_ND, C_FORMAT_FRACTAL_NZ),"
                   " ASCENDC_TPL_FORMAT_DECL(g, 0, 3));\n"
                   'int main() { printf("%llu\\n", (unsigned long long)GET_TPL_TILING_KEY(29, 3)); }\n')
    exe = tmp_path / "host"
    subprocess.run([HOST_TOOLS["g++"], "-std=c++17", f"-I{INCLUDE}", str(src), "-o", str(exe)], check=True)
    assert int(subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout) == 29 | 3 << 8


@needs_host_tools
def test_dataformat_argument_follows_the_variant(tmp_path):
    """ASCENDC_TPL_FORMAT_DECL(fmt, C_FORMAT_ND, C_FORMAT_NCHW, ASCENDC_TPL_INPUT(0)): the argument is the
    ge::Format number of input 0's format in the variant (NCHW = 0)."""
    from sk.engine import kernel_types
    from sk.toolflow import cannbuild, subkernel, toolargv

    (tmp_path / "op.cpp").write_text("""
#include "kernel_operator.h"
#include "ascendc/host_api/tiling/template_argument.h"
ASCENDC_TPL_ARGS_DECL(Op, ASCENDC_TPL_FORMAT_DECL(fmt, C_FORMAT_ND, C_FORMAT_NCHW, ASCENDC_TPL_INPUT(0)),
                      ASCENDC_TPL_UINT_DECL(mode, 2, ASCENDC_TPL_UI_LIST, 5, 7));
ASCENDC_TPL_SEL(ASCENDC_TPL_ARGS_SEL(ASCENDC_TPL_FORMAT_SEL(fmt, C_FORMAT_ND, C_FORMAT_NCHW),
                                     ASCENDC_TPL_UINT_SEL(mode, ASCENDC_TPL_UI_LIST, 7)));
template <int fmt, uint32_t mode>
__global__ __aicore__ void op(GM_ADDR x, GM_ADDR workspace, GM_ADDR tiling) {
    static_assert(fmt == 0 && mode == 7, "the NCHW variant, mode 7");
}
""")
    p = {"name": "x", "dtype": "float16", "format": "NCHW"}
    config = _config(tmp_path, {"op_list": [{"inputs": [dict(p, format="ND")]}, {"inputs": [p]}]})
    tools = toolargv.Tools(toolargv.HOST, compiler=HOST_TOOLS["g++"])
    inst = cannbuild.CannInstance("op", config, "1", "", ("x", "workspace", "tiling"))
    ran = subkernel.compile_source(tools, str(tmp_path / "op.cpp"), str(tmp_path / "op.o"),
                                   kt=kernel_types.lookup("AIV_ONLY", "k"), block_dim=1, options=None, plain=True,
                                   include_dirs=[INCLUDE], entry="op_nchw", cann=inst)
    assert "-DTILING_KEY_VAR=256UL" in ran[-1]  # fmt = 0 (NCHW) in bits 0-7, mode index 1 in bits 8-9
    with pytest.raises(SkError, match="follows the binary variant's dtype.*got 2"):
        subkernel.compile_source(tools, str(tmp_path / "op.cpp"), str(tmp_path / "op.o"),
                                 kt=kernel_types.lookup("AIV_ONLY", "k"), block_dim=1, options=None, plain=True,
                                 include_dirs=[INCLUDE], entry="op_nchw",
                                 cann=inst._replace(combination="fmt=2,mode=7"))
