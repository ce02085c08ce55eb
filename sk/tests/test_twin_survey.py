"""`sk twin survey` and `sk twin calls` over a tiny operator repository of our own (tests/fixtures/oprepo):
per-variant compiles with the ADK defines, the host tiling structs in front, every selected template instance,
the staging of sibling ops, and the first missing API or header named."""

import json
import re
import subprocess
from pathlib import Path

import pytest

from sk.cli import main as cli
from sk.engine import cannop
from sk.twin import apicalls, opsrc
from sk.twin import binding as twin

REPO = Path(__file__).parent / "fixtures" / "oprepo"

TABLE = """\
op           variants  compiled  first missing API or header
gather_pick         1         0  AscendC::Digamma
mode_pick           2         1  static assertion failed: mode_pick: mode 3 is not written for half yet
no_header           1         0  header lib/nowhere/not_a_header.h
scale_add           3         3  -
compiled: 1 of 4 operators (every variant), 4 of 7 variants
"""


def test_survey_table(capsys):
    assert cli.main(["twin", "survey", str(REPO)]) == 0
    assert capsys.readouterr().out == TABLE


def test_survey_json_and_under(capsys):
    assert cli.main(["twin", "survey", str(REPO), "--json", "--under", "ops", "--jobs", "1"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["operators"], doc["operators_compiled"], doc["variants"], doc["variants_compiled"]) == (4, 1, 7, 4)
    by_op = {o["op"]: o for o in doc["ops"]}
    assert by_op["mode_pick"]["instances"] == 3  # modes 0, 1, 3: what ASCENDC_TPL_SEL selects
    assert by_op["scale_add"] == {"op": "scale_add", "path": "ops/scale_add", "variants": 3, "compiled": 3,
                                  "instances": 0, "ok": True, "first_missing": "", "warnings": []}
    assert str(REPO) not in json.dumps(doc)  # no absolute paths


def test_survey_keeps_its_work_files(tmp_path, capsys):
    assert cli.main(["twin", "survey", str(REPO), "--under", "ops", "--keep", str(tmp_path)]) == 0
    capsys.readouterr()
    # Every op_kernel/ staged side by side, the shared one too; the generated prelude of scale_add.
    assert sorted(p.name for p in (tmp_path / "stage").iterdir()) == [
        "gather_pick", "kernel_util", "mode_pick", "no_header", "scale_add"]
    assert "OpTilingDefault<0> { using type = ScaleAddTilingData; }" in (tmp_path / "scale_add.prelude.h").read_text()
    # And at the repository's own layout, for `../../<op>/op_kernel/x.h` from a staged kernel.
    assert (tmp_path / "kernel_util" / "op_kernel").is_dir() and (tmp_path / "scale_add" / "op_kernel").is_dir()


@pytest.mark.parametrize("argv, message", [
    (["twin", "survey", "/nonexistent/repo"], "Argument DIR: '/nonexistent/repo' not found"),
    (["twin", "survey", str(REPO), "--under", "nope"], "--under: not a folder of the repository (got 'nope')"),
    (["twin", "survey", str(REPO), "--jobs", "0"], "Argument --jobs: '0' is out of range; allowed: a whole number from 1 to 256"),
    (["twin", "survey", str(REPO), "--soc", "ascend950"], "no operator with a ascend950 binary config"),
    (["twin", "calls", str(REPO), "--soc", "ascend950"], "no operator with a ascend950 binary config"),
])
def test_bad_input_is_named(capsys, argv, message):
    assert cli.main(argv) == 2
    assert message in capsys.readouterr().err


def test_tiling_prelude_orders_structs_and_takes_constants(tmp_path):
    op_dir = tmp_path / "two" / "op_host"
    op_dir.mkdir(parents=True)
    (op_dir / "two_tiling.h").write_text(
        "constexpr int N_BASE = 2;\nconst int N_MAX = N_BASE + 1;\n#define UNUSED_MACRO 9\n"
        "void Tiling() {\n    const int IN_A_FUNCTION = 4;\n}\n"
        "BEGIN_TILING_DATA_DEF(Outer)\nTILING_DATA_FIELD_DEF_STRUCT(Inner, in);\n"
        "TILING_DATA_FIELD_DEF_ARR(int32_t, N_MAX, a);\nEND_TILING_DATA_DEF;\n"
        "BEGIN_TILING_DATA_DEF(Inner)\nTILING_DATA_FIELD_DEF(int64_t, x);\nEND_TILING_DATA_DEF;\n"
        "REGISTER_TILING_DATA_CLASS(Two, Outer)\nREGISTER_TILING_DATA_CLASS(Two_7, Inner)\n")
    text = opsrc.tiling_prelude(opsrc.Operator("two", tmp_path / "two", tmp_path / "two.cpp", ()))
    assert text.index("const int N_MAX = N_BASE + 1;") < text.index("BEGIN_TILING_DATA_DEF(Inner)") \
        < text.index("BEGIN_TILING_DATA_DEF(Outer)")
    assert "UNUSED_MACRO" not in text and "IN_A_FUNCTION" not in text
    assert text.index("constexpr int N_BASE = 2;") < text.index("const int N_MAX")  # what N_MAX needs, first
    assert "template <> struct sk_twin::OpTilingDefault<0> { using type = Outer; };" in text
    assert "template <> struct sk_twin::OpTilingForKey<7UL> { using type = Inner; };" in text


def test_tiling_prelude_finds_shared_registrations(tmp_path):
    """A tiling registered in a shared op_host/ folder: found through the op's include (beta) or the repository's
    registrations (alpha, whose op_host/ includes nothing); each op takes its own type's struct."""
    shared = tmp_path / "shared" / "op_host"
    shared.mkdir(parents=True)
    (shared / "defs.h").write_text(
        "BEGIN_TILING_DATA_DEF(AlphaTiling)\nTILING_DATA_FIELD_DEF(int64_t, n);\nEND_TILING_DATA_DEF;\n"
        "BEGIN_TILING_DATA_DEF(BetaTiling)\nTILING_DATA_FIELD_DEF(int32_t, m);\nEND_TILING_DATA_DEF;\n"
        "REGISTER_TILING_DATA_CLASS(AlphaOp, AlphaTiling)\nREGISTER_TILING_DATA_CLASS(BetaOp, BetaTiling)\n"
        "REGISTER_TILING_DATA_CLASS(BetaOp_3, AlphaTiling)\n")
    ops = {}
    for name, op_type, source in (("alpha", "AlphaOp", "// no include\n"),
                                  ("beta", "BetaOp", '#include "../../shared/op_host/defs.h"\n')):
        cfg = tmp_path / name / "op_host" / "config" / "ascend910b" / f"{name}_binary.json"
        cfg.parent.mkdir(parents=True)
        cfg.write_text(json.dumps({"op_type": op_type, "op_list": []}))
        (tmp_path / name / "op_host" / f"{name}_def.cpp").write_text(source)
        ops[name] = opsrc.Operator(name, tmp_path / name, tmp_path / name / "op_kernel" / f"{name}.cpp", (cfg,))
    # Ascend 950's folder (arch35) registers AlphaOp too, with a struct of the same name: not the 910B's.
    (tmp_path / "other" / "op_host" / "arch35").mkdir(parents=True)
    (tmp_path / "other" / "op_host" / "arch35" / "t.h").write_text(
        "BEGIN_TILING_DATA_DEF(AlphaTiling)\nTILING_DATA_FIELD_DEF(int8_t, wrong);\nEND_TILING_DATA_DEF;\n"
        "REGISTER_TILING_DATA_CLASS(AlphaOp, AlphaTiling)\n")
    registry = opsrc.tiling_registry(tmp_path)
    assert sorted(registry) == ["AlphaOp", "BetaOp"] and registry["BetaOp"] == [shared / "defs.h"]
    assert registry["AlphaOp"] == [shared / "defs.h"]
    assert opsrc.tiling_registry(tmp_path, "ascend950")["AlphaOp"] == [tmp_path / "other" / "op_host" / "arch35" / "t.h"]
    assert opsrc.op_type(ops["beta"]) == "BetaOp"
    alpha = opsrc.tiling_prelude(ops["alpha"], registry)
    assert "template <> struct sk_twin::OpTilingDefault<0> { using type = AlphaTiling; };" in alpha
    assert "OpTilingForKey" not in alpha  # BetaOp_3 is beta's
    assert "OpTilingDefault" not in opsrc.tiling_prelude(ops["alpha"])  # without the registry: not found
    beta = opsrc.tiling_prelude(ops["beta"])  # through its include alone
    assert "template <> struct sk_twin::OpTilingDefault<0> { using type = BetaTiling; };" in beta
    assert "template <> struct sk_twin::OpTilingForKey<3UL> { using type = AlphaTiling; };" in beta


def test_tiling_prelude_resolves_a_sibling_ops_header_from_the_category_folder(tmp_path):
    """`#include "mat/op_host/mat_tiling.h"` in bmm's op_host names a sibling op from the category folder (the op
    build's include path): its struct, a field of bmm's, comes first in the prelude."""
    (tmp_path / "mat" / "op_host").mkdir(parents=True)
    (tmp_path / "mat" / "op_host" / "mat_tiling.h").write_text(
        "BEGIN_TILING_DATA_DEF(MatTiling)\nTILING_DATA_FIELD_DEF(int32_t, m);\nEND_TILING_DATA_DEF;\n")
    (tmp_path / "bmm" / "op_host").mkdir(parents=True)
    (tmp_path / "bmm" / "op_host" / "bmm_tiling.h").write_text(
        '#include "mat/op_host/mat_tiling.h"\n#include "not/in/this/repo.h"\n'
        "BEGIN_TILING_DATA_DEF(BmmTiling)\nTILING_DATA_FIELD_DEF_STRUCT(MatTiling, mat);\nEND_TILING_DATA_DEF;\n")
    text = opsrc.tiling_prelude(opsrc.Operator("bmm", tmp_path / "bmm", tmp_path / "bmm" / "bmm.cpp", ()))
    assert "BEGIN_TILING_DATA_DEF(MatTiling)" in text
    assert text.index("BEGIN_TILING_DATA_DEF(MatTiling)") < text.index("BEGIN_TILING_DATA_DEF(BmmTiling)")


def test_tiling_prelude_leaves_a_struct_the_kernel_defines_to_the_kernel(tmp_path):
    """A host BEGIN_TILING_DATA_DEF struct whose name the kernel defines itself (REGISTER_TILING_DEFAULT with its own
    struct) is neither defined nor registered again; a struct only an Ascend 950 kernel folder defines still is."""
    host, kernel = tmp_path / "gamma" / "op_host", tmp_path / "gamma" / "op_kernel"
    (kernel / "arch35").mkdir(parents=True)
    host.mkdir(parents=True)
    (host / "gamma_tiling.h").write_text(
        "BEGIN_TILING_DATA_DEF(GammaTiling)\nTILING_DATA_FIELD_DEF(int64_t, n);\nEND_TILING_DATA_DEF;\n"
        "BEGIN_TILING_DATA_DEF(DeltaTiling)\nTILING_DATA_FIELD_DEF(int64_t, m);\nEND_TILING_DATA_DEF;\n"
        "REGISTER_TILING_DATA_CLASS(Gamma, GammaTiling)\nREGISTER_TILING_DATA_CLASS(Gamma_2, DeltaTiling)\n")
    (kernel / "gamma_tiling_data.h").write_text("struct __attribute__((aligned(8))) GammaTiling {\n  int64_t n;\n};\n")
    (kernel / "arch35" / "t.h").write_text("struct DeltaTiling { int64_t m; };\n// struct Commented {\n")
    # A struct of a sibling op's kernel header that gamma includes through the repository layout is the kernel's too.
    (tmp_path / "sib" / "op_kernel").mkdir(parents=True)
    (tmp_path / "sib" / "op_kernel" / "s.h").write_text("struct EpsTiling {\n  int32_t k;\n};\n")
    (kernel / "gamma.cpp").write_text('#include "../../sib/op_kernel/s.h"\n')
    # An Ascend 950 entry at the top of op_kernel/ includes its arch35/ header: not followed for the 910B.
    (kernel / "gamma_apt.cpp").write_text('#include "arch35/t.h"\n')
    (host / "eps_tiling.h").write_text(
        "BEGIN_TILING_DATA_DEF(EpsTiling)\nTILING_DATA_FIELD_DEF(int32_t, k);\nEND_TILING_DATA_DEF;\n")
    cfg = tmp_path / "gamma" / "op_host" / "config" / "ascend910b" / "gamma_binary.json"
    op = opsrc.Operator("gamma", tmp_path / "gamma", kernel / "gamma.cpp", (cfg,))
    assert opsrc.kernel_structs(op) == {"GammaTiling", "EpsTiling"}
    text = opsrc.tiling_prelude(op)
    assert "BEGIN_TILING_DATA_DEF(GammaTiling)" not in text and "OpTilingDefault" not in text
    assert "BEGIN_TILING_DATA_DEF(EpsTiling)" not in text
    assert "BEGIN_TILING_DATA_DEF(DeltaTiling)" in text
    assert "template <> struct sk_twin::OpTilingForKey<2UL> { using type = DeltaTiling; };" in text


def test_variant_defines_take_the_op_definitions_parameter_names(tmp_path):
    """The ADK names -DDTYPE_<P> after the op definition's parameter at each index (the binary config may say `y`
    where the definition says `z`); without a definition, or with another parameter count, the config's names."""
    from sk.twin import survey as sv
    host = tmp_path / "eps" / "op_host"
    host.mkdir(parents=True)
    (host / "eps_def.cpp").write_text(
        'this->Input("x")\n    .DataType({ge::DT_FLOAT});\n// this->Input("old")\n'
        'this->Input("indice");\nthis->Output("z");\nconfig310p.Input("other");\n')
    op = opsrc.Operator("eps", tmp_path / "eps", tmp_path / "eps" / "op_kernel" / "eps.cpp", ())
    assert opsrc.def_param_names(op) == (["x", "indice"], ["z"])
    v = cannop.Variant(0, "b", (cannop.Param("x", "float32", "ND"), cannop.Param("indices", "int32", "ND")),
                       (cannop.Param("y", "float32", "ND"),))
    named = sv._named_as_defined(v, opsrc.def_param_names(op))
    defines = cannop.variant_defines(named)
    assert "-DDTYPE_INDICE=int32_t" in defines and "-DDTYPE_Z=float" in defines
    assert not any(d.startswith(("-DDTYPE_INDICES=", "-DDTYPE_Y=")) for d in defines)
    assert sv._named_as_defined(v, (["x"], ["z"])) == v  # another input count: unchanged
    assert sv._named_as_defined(v, None) == v


def test_kernel_source_and_entry_as_the_op_build_finds_them(tmp_path, capsys):
    """An op whose kernel file and __global__ function are not named after its folder (ops-nn's dynamic_rnn:
    opFile dynamic_rnn_910b, embedding_bag: embedding_bag_apt, conv3d_v2: opInterface conv3dv2) is compiled from the
    file the op definition names, its template entry instantiated by the definition's opInterface; a binary config
    with a repeated key (ops-nn's foreach_reciprocal) is read as the ADK reads it, with a warning naming it."""
    import shutil
    op = tmp_path / "ops" / "mode_pick"
    shutil.copytree(REPO / "ops" / "mode_pick", op)
    src = (op / "op_kernel" / "mode_pick.cpp").read_text()
    (op / "op_kernel" / "mode_pick.cpp").unlink()
    (op / "op_kernel" / "mode_pick_910b.cpp").write_text(src.replace("void mode_pick(", "void pick_entry("))
    (op / "op_host" / "mode_pick_def.cpp").write_text(
        'OpAICoreConfig cfg;\ncfg.DynamicShapeSupportFlag(true)\n    .ExtendCfgInfo("opFile.value", "mode_pick_910b")\n'
        '    .ExtendCfgInfo("opInterface.value", "pick_entry");\nthis->AICore().AddConfig("ascend910b", cfg);\n')
    cfg = op / "op_host" / "config" / "ascend910b" / "mode_pick_binary.json"
    cfg.write_text(cfg.read_text().replace('"bin_filename":', '"bin_filename": "Gone", "bin_filename":', 1))
    assert cli.main(["twin", "survey", str(tmp_path), "--json"]) == 0
    out = capsys.readouterr()
    (res,) = json.loads(out.out)["ops"]
    # modes 0, 1, 3 instantiated as pick_entry<...>; half's mode 3 fails as in the fixture (the kernel's own assert).
    assert (res["variants"], res["compiled"], res["instances"]) == (2, 1, 3)
    assert "mode 3 is not written for half" in res["first_missing"]
    warning = ("ops/mode_pick/op_host/config/ascend910b/mode_pick_binary.json:2: key 'bin_filename' appears twice "
               "in one object; read as the ADK reads it (Python json: the last value wins)")
    assert res["warnings"] == [warning]
    assert out.err == f"sk twin survey: warning: {warning}\n"
    # Without the definition: the folder's name, which this op's kernel no longer has.
    (op / "op_host" / "mode_pick_def.cpp").unlink()
    assert cli.main(["twin", "survey", str(tmp_path)]) == 0
    assert "no kernel op_kernel/mode_pick.cpp" in capsys.readouterr().out


def test_an_ops_cmake_dependencies_are_staged_beside_it(tmp_path, capsys):
    """ops-transformer's mc2 kernels include `../common/inc/kernel/x.h` (the op build's staging: the op's CMakeLists
    names `mc2/common` as a dependency, copied beside the ops as `common/`) or `../../common/...` (the repository's
    layout); both resolve, and an op without the dependency named does not see it."""
    import shutil
    for name, dep, inc in (("deps_a", "grp/common", "../common/inc/helper.h"),
                           ("deps_b", "grp/common grp/missing", "../../common/inc/helper.h"),
                           ("deps_c", "", "../common/inc/other.h")):
        op = tmp_path / "grp" / name
        shutil.copytree(REPO / "ops" / "scale_add", op)
        (op / "op_host" / "config" / "ascend910b" / "scale_add_binary.json").rename(
            op / "op_host" / "config" / "ascend910b" / f"{name}_binary.json")
        src = (op / "op_kernel" / "scale_add.cpp").read_text()
        (op / "op_kernel" / "scale_add.cpp").unlink()
        src = src.replace('#include "../kernel_util/tile.h"', f'#include "{inc}"').replace("void scale_add(", f"void {name}(")
        (op / "op_kernel" / f"{name}.cpp").write_text(src)
        if dep:
            (op / "CMakeLists.txt").write_text(f"# set(x_depends nothing)\nset(${{CURRENT_DIR_NAME}}_depends {dep} PARENT_SCOPE)\n")
    common = tmp_path / "grp" / "common" / "inc"
    common.mkdir(parents=True)
    (common / "helper.h").write_text((REPO / "shared" / "kernel_util" / "op_kernel" / "tile.h").read_text())
    (tmp_path / "grp" / "common" / "op_host").mkdir()  # the op build leaves a dependency's op_host/ out
    assert cli.main(["twin", "survey", str(tmp_path), "--keep", str(tmp_path / "keep")]) == 0
    out = capsys.readouterr().out
    assert re.search(r"deps_a\s+3\s+3\s+-", out) and re.search(r"deps_b\s+3\s+3\s+-", out), out
    assert re.search(r"deps_c\s+3\s+0\s+header \.\./common/inc/other\.h", out), out
    assert not (tmp_path / "keep" / "stage" / "common" / "op_host").exists()
    assert [p.name for p in opsrc.op_depends(opsrc.Operator("deps_b", tmp_path / "grp" / "deps_b", Path(), ()),
                                             tmp_path)] == ["common"]


def test_call_counts(capsys):
    files, ops = apicalls.kernel_files(REPO, "ascend910b", ["ops"])
    assert [o.name for o in ops] == ["gather_pick", "mode_pick", "no_header", "scale_add"]
    # Each kernel, its tiling-key header and the sibling header scale_add reaches through ../kernel_util/.
    assert sorted(p.name for p in files) == ["gather_pick.cpp", "mode_pick.cpp", "mode_pick_tiling_key.h",
                                            "no_header.cpp", "scale_add.cpp", "tile.h"]
    counts = apicalls.count_calls(files)
    assert counts["SetGlobalBuffer"] == 4 and counts["Digamma"] == 1 and counts["PRINTF"] == 1
    assert "TileOf" not in counts  # the kernels' own function
    assert cli.main(["twin", "calls", str(REPO), "--json", "--top", "3"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["operators"] == 4 and len(doc["calls"]) == 3
    assert doc["calls"][0] == {"name": "SetGlobalBuffer", "count": 4, "declared": True}
    assert cli.main(["twin", "calls", str(REPO)]) == 0
    assert "     1 Digamma  missing\n" in capsys.readouterr().out


def test_comments_and_strings_are_not_calls():
    text = 'Add(a); // Sub(b)\n/* Mul(c)\n */ x = "Div(d)"; Exp(e);'
    stripped = apicalls.strip_comments_and_strings(text)
    assert stripped.count("\n") == text.count("\n")
    assert "Sub" not in stripped and "Mul" not in stripped and "Div" not in stripped
    assert "Add(a)" in stripped and "Exp(e)" in stripped


def test_first_missing_reads_gcc_errors():
    from sk.twin.survey import first_missing
    assert first_missing("a.cpp:3:10: fatal error: x/y.h: No such file or directory") == "header x/y.h"
    assert first_missing("k.h:9:5: error: ‘Foo’ was not declared in this scope") == "Foo"
    assert first_missing("k.h:9:5: error: ‘Bar’ is not a member of ‘AscendC’") == "AscendC::Bar"
    # Otherwise the first error's text, without the work folders.
    assert first_missing("k.h:1:1: note: x\nk.h:2:2: error: odd in /abs/stage/f.h\nk.h:3:3: error: later",
                         ("/abs/stage/",)) == "odd in f.h"
    assert first_missing("") == ""


def test_dtype_and_format_macros_are_the_ge_numbers(tmp_path):
    """The twin's DT_/FORMAT_ macros (the toolkit's kernel_type.h) are the numbers the ADK's template arguments use
    (cannop.DT_NUMBERS) and ge::Format's; `#if ORIG_DTYPE_X == DT_FLOAT` tells the variants apart."""
    text = (twin.INCLUDE_DIR / "sk_twin_kernel_type.h").read_text()
    macros = {m.group(1): int(m.group(2), 0) for m in re.finditer(r"#define (\w+)\s+(\w+)", text)
              if m.group(1) != "SK_TWIN_KERNEL_TYPE_H_"}
    assert {k: v for k, v in macros.items() if k in cannop.DT_NUMBERS} == cannop.DT_NUMBERS
    assert [macros[f"FORMAT_{f}"] for f in ("NCHW", "NHWC", "ND", "NC1HWC0", "FRACTAL_Z", "NDHWC", "FRACTAL_NZ",
                                            "NCDHW", "NDC1HWC0", "FRACTAL_Z_3D", "NCL")] == [
        0, 1, 2, 3, 4, 27, 29, 30, 32, 33, 47]
    # ...and the ge::Format numbers DATAFORMAT template arguments use (cannop.FORMAT_NUMBERS) agree.
    formats = {k[len("FORMAT_"):]: v for k, v in macros.items() if k.startswith("FORMAT_")}
    assert {k: v for k, v in formats.items() if k in cannop.FORMAT_NUMBERS} == {
        k: cannop.FORMAT_NUMBERS[k] for k in formats if k in cannop.FORMAT_NUMBERS}
    assert len(set(formats) & set(cannop.FORMAT_NUMBERS)) == 48
    src = tmp_path / "k.cpp"
    src.write_text('#include "kernel_operator.h"\n'
                   "#if ORIG_DTYPE_X == DT_FLOAT\nconstexpr int kPicked = 32;\n"
                   "#elif ORIG_DTYPE_X == DT_FLOAT16\nconstexpr int kPicked = 16;\n#endif\n"
                   "static_assert(kPicked == WANT, \"branch\");\n"
                   "static_assert(FORMAT_X == FORMAT_FRACTAL_NZ, \"format\");\n")
    for dt, want in (("DT_FLOAT", 32), ("DT_FLOAT16", 16)):
        argv = [twin.compiler(), *twin.kernel_cflags(), "-fsyntax-only", f"-DORIG_DTYPE_X={dt}",
                "-DFORMAT_X=FORMAT_FRACTAL_NZ", f"-DWANT={want}", str(src)]
        res = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        assert res.returncode == 0, res.stdout[-2000:]


def test_op_depends_reads_op_hosts_cmakelists_too(tmp_path):
    """matmul_all_reduce names its dependencies in op_host/CMakeLists.txt, not the op's own; the op build reads both."""
    op = tmp_path / "grp" / "mar"
    (op / "op_host").mkdir(parents=True)
    (tmp_path / "grp" / "third").mkdir()
    (tmp_path / "grp" / "common").mkdir()
    (op / "CMakeLists.txt").write_text("set(mar_depends grp/common)\n")
    (op / "op_host" / "CMakeLists.txt").write_text("set(${CURRENT_DIR_NAME}_depends grp/third grp/common)\n")
    deps = opsrc.op_depends(opsrc.Operator("mar", op, Path(), ()), tmp_path)
    assert [p.name for p in deps] == ["common", "third"]
    (op / "CMakeLists.txt").unlink()
    assert [p.name for p in opsrc.op_depends(opsrc.Operator("mar", op, Path(), ()), tmp_path)] == ["third", "common"]


def test_tiling_prelude_follows_the_repositorys_host_include_path(tmp_path):
    """An op_host header includes `tiling/shared_tiling.h` and `mm/op_host/mm_tiling.h`, found only through the
    repository's OP_TILING_INCLUDE (cmake/variables.cmake: `${OPS_X_DIR}/grp/common/inc`, `${OPS_X_DIR}/grp/3rd`):
    their structs are generated, fields first; an entry outside the repository or missing is no folder of it."""
    (tmp_path / "CMakeLists.txt").write_text("# set(WRONG_DIR ${CMAKE_CURRENT_SOURCE_DIR})\n"
                                             "set(OPS_X_DIR ${CMAKE_CURRENT_SOURCE_DIR})\n")
    (tmp_path / "cmake").mkdir()
    (tmp_path / "cmake" / "variables.cmake").write_text(
        "set(OP_TILING_INCLUDE\n  ${TOP_DIR}/grp/3rd\n  ${OPS_X_DIR}/grp/gone\n  ${OPS_X_DIR}/grp/common/inc/\n"
        "  ${OPS_X_DIR}/grp/3rd\n)\nset(OTHER_INCLUDE ${OPS_X_DIR}/grp)\n")
    (tmp_path / "grp" / "common" / "inc" / "tiling").mkdir(parents=True)
    (tmp_path / "grp" / "common" / "inc" / "tiling" / "shared_tiling.h").write_text(
        '#include "mm/op_host/mm_tiling.h"\n'
        "BEGIN_TILING_DATA_DEF(SharedMsg)\nTILING_DATA_FIELD_DEF(uint32_t, n);\n"
        "TILING_DATA_FIELD_DEF_STRUCT(MmTiling, mm);\nEND_TILING_DATA_DEF;\n")
    (tmp_path / "grp" / "3rd" / "mm" / "op_host").mkdir(parents=True)
    (tmp_path / "grp" / "3rd" / "mm" / "op_host" / "mm_tiling.h").write_text(
        "BEGIN_TILING_DATA_DEF(MmTiling)\nTILING_DATA_FIELD_DEF(int32_t, m);\nEND_TILING_DATA_DEF;\n")
    op = tmp_path / "grp" / "ar"
    (op / "op_host").mkdir(parents=True)
    (op / "op_host" / "ar_tiling.h").write_text(
        '#include "tiling/shared_tiling.h"\n'
        "BEGIN_TILING_DATA_DEF(ArTiling)\nTILING_DATA_FIELD_DEF_STRUCT(SharedMsg, msg);\nEND_TILING_DATA_DEF;\n")
    assert opsrc.host_include_dirs(op) == [tmp_path / "grp" / "common" / "inc", tmp_path / "grp" / "3rd"]
    text = opsrc.tiling_prelude(opsrc.Operator("ar", op, op / "ar.cpp", ()))
    order = [text.index(f"BEGIN_TILING_DATA_DEF({s})") for s in ("MmTiling", "SharedMsg", "ArTiling")]
    assert order == sorted(order), text
    # Without the root's own variable the entries are no folders of this repository.
    (tmp_path / "CMakeLists.txt").write_text("set(WRONG_DIR ${CMAKE_CURRENT_SOURCE_DIR})\n")
    assert opsrc.host_include_dirs(tmp_path / "grp" / "other_op") == []


def test_a_kernel_may_name_the_compilers_builtin_types_before_its_first_include(tmp_path):
    """bisheng knows half and bfloat16_t without an include; the twin's kernel compile forces them in front, so a
    header naming them ahead of kernel_operator.h compiles; without the forced header it does not."""
    src = tmp_path / "k.cpp"
    src.write_text("struct Tiling { half scale; bfloat16_t bias; };\n"
                   '#include "kernel_operator.h"\n'
                   "static_assert(sizeof(Tiling) == 4, \"two 16-bit fields\");\n"
                   "static_assert(sizeof(half) == 2 && sizeof(bfloat16_t) == 2, \"16-bit types\");\n"
                   "float f() { return static_cast<float>(half(1.0f / 1024)); }\n")
    from sk.toolflow import toolargv
    argv = toolargv.twin_check_argv(twin.compiler(), str(src), include_dir=str(twin.INCLUDE_DIR))
    done = subprocess.run(argv, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert argv.index("-include") < argv.index(str(src))
    plain = [a for a in argv if a not in toolargv.TWIN_BUILTIN_TYPES]
    assert subprocess.run(plain, capture_output=True, text=True).returncode != 0  # without it: `half` is unknown


def test_tiling_prelude_leaves_a_shared_struct_on_a_kernel_struct_to_the_kernel(tmp_path):
    """mc2's matmul_reduce_scatter kernel defines L2cacheUseInfo itself (reached through `../../common/...`); a shared
    host struct with a field of it (MatmulTilingData) cannot come in front of the kernel, unless the op's own type
    registers it; a shared folder's registration of another op's type is not this op's default struct."""
    host, kernel, common = (tmp_path / "rs" / "op_host", tmp_path / "rs" / "op_kernel",
                            tmp_path / "common" / "inc" / "kernel")
    for d in (host, kernel, common):
        d.mkdir(parents=True)
    (common / "l2.h").write_text("struct L2Use {\n  int32_t a;\n};\n")
    (kernel / "rs.cpp").write_text('#include "../../common/inc/kernel/l2.h"\n')
    (tmp_path / "shared.h").write_text(
        "BEGIN_TILING_DATA_DEF(L2Use)\nTILING_DATA_FIELD_DEF(int32_t, a);\nEND_TILING_DATA_DEF;\n"
        "BEGIN_TILING_DATA_DEF(MmTiling)\nTILING_DATA_FIELD_DEF_STRUCT(L2Use, l2);\nEND_TILING_DATA_DEF;\n"
        "BEGIN_TILING_DATA_DEF(CfgTiling)\nTILING_DATA_FIELD_DEF(int32_t, c);\nEND_TILING_DATA_DEF;\n"
        "REGISTER_TILING_DATA_CLASS(CfgOp, CfgTiling)\n")
    (host / "rs_tiling.h").write_text('#include "../../shared.h"\n')
    op = opsrc.Operator("rs", tmp_path / "rs", kernel / "rs.cpp", ())
    assert "L2Use" in opsrc.kernel_structs(op)
    text = opsrc.tiling_prelude(op)
    assert "DEF(L2Use)" not in text and "DEF(MmTiling)" not in text and "DEF(CfgTiling)" in text
    assert "OpTilingDefault" not in text  # CfgOp is not Rs
    (host / "rs_reg.h").write_text("REGISTER_TILING_DATA_CLASS(Rs, MmTiling)\n")
    text = opsrc.tiling_prelude(op)
    assert "DEF(MmTiling)" in text and "using type = MmTiling;" in text
