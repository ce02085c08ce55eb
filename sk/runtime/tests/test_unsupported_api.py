"""An Ascend C API the twin does not implement fails to compile with a message
that says so (static_assert / #error), never with a link error or an unknown
name; the same kernel without the unsupported call compiles."""

import subprocess

import pytest

from sk.twin import binding as twin

PRELUDE = """#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void k(GM_ADDR x) {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 1024);
    LocalTensor<float> t = buf.Get<float>();
    LocalTensor<int32_t> ti = buf.Get<int32_t>();
    (void)t; (void)ti; (void)x;
"""

CASES = {
    "matmul_ub_input": ("Matmul<MatmulType<TPosition::VECOUT, CubeFormat::ND, half>, MatmulType<TPosition::GM, "
                        "CubeFormat::ND, half>, MatmulType<TPosition::GM, CubeFormat::ND, float>> mm;",
                        "Matmul: the CPU twin takes A and B in GM"),
    "matmul_int16": ("Matmul<MatmulType<TPosition::GM, CubeFormat::ND, int16_t>, MatmulType<TPosition::GM, "
                     "CubeFormat::ND, int16_t>, MatmulType<TPosition::GM, CubeFormat::ND, float>> mm;",
                     "Matmul: the CPU twin supports A/B of half, bfloat16_t, float, int8_t"),
    "matmul_cfg_relu": ("constexpr static MatmulConfig relu{.doNorm = true, .enableRelu = true}; Matmul<MatmulType<"
                        "TPosition::GM, CubeFormat::ND, half>, MatmulType<TPosition::GM, CubeFormat::ND, half>, "
                        "MatmulType<TPosition::GM, CubeFormat::ND, float>, MatmulType<TPosition::GM, CubeFormat::ND, "
                        "float>, relu> mm;",
                        "the CPU twin does not implement MatmulConfig::enableRelu yet"),
    "matmul_callback": ("}\nvoid Out(const __gm__ void*, const LocalTensor<int8_t>&, const void*, const uint64_t, "
                        "const uint64_t) {}\nvoid g() { using T = MatmulType<TPosition::GM, CubeFormat::ND, half>; "
                        "Matmul<T, T, T, T, CFG_NORM, MatmulCallBackFunc<Out>> mm;",
                        "the CPU twin does not implement the MatmulCallBackFunc DataCopyOut callback"),
    "and_float": ("BinaryRepeatParams p; And(t, t, t, (uint64_t)64, 1, p);",
                  "And: the CPU twin (as Atlas A2/A3) supports T = int16_t, uint16_t"),
    "shift_float": ("ShiftRight(t, t, 1.0f, 8);", "ShiftRight: the CPU twin (as Atlas A2/A3) supports T = int16_t"),
    "reduce_int": ("ReduceSum(ti, ti, ti, 8);", "ReduceSum: the CPU twin supports T = half, float"),
    "div_int": ("Div(ti, ti, ti, 8);", "Div: the CPU twin (as Atlas A2/A3) supports T = half, bfloat16_t, float"),
    # sk_twin_not_yet.h: one line naming the function, whatever the arguments and explicit template arguments.
    # (Functions nobody has implemented yet: MrgSort, TransDataTo5HD, Extract, Digamma, vconv_f322s16r.)
    "not_yet_api": ("MrgSort(t, {t, t, t, t}, {1, 1, 0, 0}, 4);",
                    "the CPU twin does not implement AscendC::MrgSort yet"),
    "not_yet_api_template_args": ("TransDataTo5HD<float>(t, t, {false, false, 1, 0, 0});",
                                  "the CPU twin does not implement AscendC::TransDataTo5HD yet"),
    "not_yet_api_value_args": ("Extract<float, true>(t, ti, t, 8);",
                               "the CPU twin does not implement AscendC::Extract yet"),
    "not_yet_api_value_only_args": ("ConfusionTranspose<PIPE_S>(3);",
                                    "the CPU twin does not implement AscendC::ConfusionTranspose yet"),
    "not_yet_adv_api": ("}\n#include \"adv_api/math/digamma.h\"\nvoid f(LocalTensor<float> t) { Digamma(t, t, 8u);",
                        "the CPU twin does not implement AscendC::Digamma yet"),
    "not_yet_value_used": ("float acc = Lgamma<float>() * 32; (void)acc;",
                           "the CPU twin does not implement AscendC::Lgamma yet"),
    "not_yet_intrinsic": ("vconv_f322s16r(nullptr, nullptr, 1, 1, 1, 8, 4);",
                          "the CPU twin does not implement the intrinsic vconv_f322s16r yet"),
    # The cube's data path: the forms the twin lacks stop at the catch-all or at a static_assert naming them.
    "loaddata_v2_form": ("LocalTensor<half> h = buf.Get<half>(); LoadData2DParamsV2 p; LoadData(h, h, p);",
                         "the CPU twin does not implement AscendC::LoadData yet"),
    "fixpipe_column_major": ("GlobalTensor<float> g; Fixpipe<float, float, CFG_COLUMN_MAJOR>(g, t, FixpipeParamsV220());",
                             "CFG_COLUMN_MAJOR (NZ2DN) exists on Ascend 950 only"),
    "mmad_half_out": ("LocalTensor<half> h = buf.Get<half>(); Mmad(h, h, h, MmadParams());",
                      "Mmad: the CPU twin supports fm/filter/dst of half/half/float"),
    # LoadData 3D is implemented (sk_twin_conv.h); a padValue type other than the tensors' is a compile error.
    "loaddata_3d_pad_type": ("LocalTensor<half> h = buf.Get<half>(); LoadData3DParamsV2<float> p; LoadData(h, h, p);",
                             "the CPU twin does not implement AscendC::LoadData yet"),
    # L0C -> UB (DataCopyEnhancedParams) has no path on Atlas A2/A3: its types compile, a call stops.
    "l0c_to_ub": ("LocalTensor<half> h = buf.Get<half>(); DataCopy(h, ti, DataCopyParams(1, 1, 0, 0), "
                  "DataCopyEnhancedParams(BlockMode::BLOCK_MODE_MATRIX, DeqScale::DEQ_NONE, 0, 0, false, PAD_NONE, 0));",
                  "DataCopy with DataCopyEnhancedParams (L0C -> UB): Atlas A2/A3, the twin's model, has no such path"),
    "not_yet_fixpipe_config": ("SetFixPipeConfig(t);", "the CPU twin does not implement AscendC::SetFixPipeConfig yet"),
    # AscendDequant: the A2 type pairs only.
    "dequant_types": ("LocalTensor<half> h = buf.Get<half>(); AscendDequant(h, ti, t, DequantParams{1, 8, 8});",
                      "on Atlas A2/A3 (the CPU twin) dstT/scaleT are"),
    # int4b_t tensors (two a byte): the instructions beyond DataCopy/DataCopyPad/Cast with half stop at one line.
    "int4_add": ("LocalTensor<int4b_t> q = buf.Get<int4b_t>(); Add(q, q, q, 64);",
                 "Add: the CPU twin (as Atlas A2/A3) supports T = half, bfloat16_t, float, int16_t, int32_t"),
    "int4_atomic": ("SetAtomicAdd<int4b_t>();", "the CPU twin does not implement this instruction for int4b_t yet"),
    "int4_cast_float": ("LocalTensor<int4b_t> q = buf.Get<int4b_t>(); Cast(t, q, RoundMode::CAST_NONE, 64);",
                        "the CPU twin does not implement Cast between int4b_t and a type other than half yet"),
    "int4_reference": ("LocalTensor<int4b_t> q = buf.Get<int4b_t>(); q(0) = int4b_t(1);",
                       "the CPU twin does not implement LocalTensor::operator() for int4b_t yet"),
    "cast_double": ("LocalTensor<double> d = buf.Get<double>(); Cast(t, d, RoundMode::CAST_RINT, 8);",
                    "does not convert double"),
}


def _compile(tmp_path, body):
    src = tmp_path / "k.cpp"
    src.write_text(PRELUDE + body + "\n}\n")
    argv = [twin.compiler(), *twin.kernel_cflags(), "-fsyntax-only", str(src)]
    return subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def test_the_supported_surface_compiles(tmp_path):
    res = _compile(tmp_path, "Add(t, t, t, 8); Exp(t, t, 8); ReduceSum(t, t, t, 8); Cast(ti, t, RoundMode::CAST_RINT, 8);"
                             "GlobalTensor<float> g; DataCopyPad(g, t, {1, 4, 0, 0}); DataCopyPad(g, t, {1, 4, 0, 0, 0});"
                             "event_t e = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::V_S));"
                             "SetFlag<HardEvent::V_S>(e); WaitFlag<HardEvent::V_S>(e); PipeBarrier<PIPE_V>();"
                             "BinaryRepeatParams p; Add(t, t, t, (uint64_t)64, 1, p); Exp(t, t, (uint64_t)64, 1, {});"
                             "SetAtomicAdd<float>(); SetAtomicNone(); Axpy(t, t, 2.0f, 8);"
                             "LocalTensor<int4b_t> q = buf.Get<int4b_t>(); GlobalTensor<int4b_t> gq;"
                             "DataCopy(q, gq, 64); DataCopyPad(gq, q, DataCopyExtParams{1, 32, 0, 0, 0});"
                             "Cast(q, q[64].ReinterpretCast<half>(), RoundMode::CAST_RINT, 32);"
                             "}\n#include \"lib/matmul_intf.h\"\nvoid f(TPipe* pipe, TCubeTiling* t) {"
                             "Matmul<MatmulType<TPosition::GM, CubeFormat::ND, half>, MatmulType<TPosition::GM, "
                             "CubeFormat::ND, half>, MatmulType<TPosition::GM, CubeFormat::ND, float>> mm;"
                             "REGIST_MATMUL_OBJ(pipe, nullptr, mm, t); GlobalTensor<float> c; mm.IterateAll(c);")
    assert res.returncode == 0, res.stdout


@pytest.mark.parametrize("case", sorted(CASES))
def test_unsupported_call_fails_to_compile_with_a_message(tmp_path, case):
    body, message = CASES[case]
    res = _compile(tmp_path, body)
    assert res.returncode != 0
    assert message in res.stdout, res.stdout[-3000:]
    assert "undefined reference" not in res.stdout
    if case.startswith("not_yet"):  # the message alone: no list of candidate overloads
        assert res.stdout.count("error:") == 1 and "candidate" not in res.stdout, res.stdout[-3000:]


def test_every_cann_header_path_compiles(tmp_path):
    """The paths CANN's kernels include (adv_api/..., lib/..., impl/..., basic_api/..., c_api/, kernel_tiling/, and
    the toolkit's top-level names: the list tensor, *_intf.h, kernel_type.h, stub_def.h ...) exist and compile
    together, each behind kernel_operator.h's surface."""
    include = twin.INCLUDE_DIR
    subs = ("adv_api", "lib", "impl", "basic_api", "kernel_tiling", "op_kernel", "c_api")
    paths = sorted(str(p.relative_to(include)) for sub in subs for p in (include / sub).rglob("*.h")
                   if "matmul" not in p.name)
    paths += sorted(p.name for p in include.glob("*.h") if not p.name.startswith("sk_"))
    assert len(paths) > 380 and "kernel_operator_list_tensor_intf.h" in paths and "stub_def.h" in paths
    src = tmp_path / "all.cpp"
    src.write_text("".join(f'#include "{p}"\n' for p in paths) + "int main() { return 0; }\n")
    argv = [twin.compiler(), *twin.kernel_cflags(), "-fsyntax-only", str(src)]
    res = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert res.returncode == 0, res.stdout[-3000:]
