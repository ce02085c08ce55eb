// sk_twin_not_yet.h - Ascend C functions the CPU twin does not implement yet,
// declared so that a kernel calling one fails to compile with one line that
// names it, instead of "not declared" or a wall of candidate templates:
//
//   error: static assertion failed: the CPU twin does not implement AscendC::GatherMask yet (or not this form of it)
//
// SK_TWIN_NOT_YET(Name) declares, in the current namespace, catch-all
// templates `Name(AnyArg...)` (up to 16 arguments, braced lists included;
// any explicit template arguments: types, one or two types then values, or values only).
// Every argument reaches AnyArg through a user-defined conversion, so a viable
// real overload wins wherever it needs only standard conversions: a name the
// twin implements in some forms stays listed and catches the others. A catch-all is only instantiated, and its
// static_assert only fires, when a call selects it. Its return type is deduced (an int), so a call whose value is
// used (`acc = Lgamma<float>();`, `Ceil(a, b) * 32`) still stops at the static_assert, not at "void value not ignored".
//
// Implementing a function: add the real overloads anywhere before the call
// (another header kernel_operator.h includes); remove the name here when
// every form is implemented, and at once if the function has a form that is a
// template called with no arguments (`SetAtomicAdd<float>()`): with nothing
// to convert, that form and the catch-all tie and the call is ambiguous. Classes are not listed (a class cannot be
// declared twice): a missing class is "not a member of AscendC" / incomplete.
#ifndef SK_TWIN_NOT_YET_H_
#define SK_TWIN_NOT_YET_H_

namespace sk_twin {
template <typename...>
constexpr bool kNotYet = false;
// Takes any argument, braced lists included, through a user-defined
// conversion: worse than the standard conversions a real overload needs.
struct AnyArg {
  template <typename... X>
  constexpr AnyArg(X&&...) {}  // NOLINT: implicit on purpose
};
}  // namespace sk_twin

#define SK_TWIN_NOT_YET_PARAMS                                                                              \
  ::sk_twin::AnyArg = {}, ::sk_twin::AnyArg = {}, ::sk_twin::AnyArg = {}, ::sk_twin::AnyArg = {},           \
      ::sk_twin::AnyArg = {}, ::sk_twin::AnyArg = {}, ::sk_twin::AnyArg = {}, ::sk_twin::AnyArg = {},       \
      ::sk_twin::AnyArg = {}, ::sk_twin::AnyArg = {}, ::sk_twin::AnyArg = {}, ::sk_twin::AnyArg = {},       \
      ::sk_twin::AnyArg = {}, ::sk_twin::AnyArg = {}, ::sk_twin::AnyArg = {}, ::sk_twin::AnyArg = {}
#define SK_TWIN_NOT_YET_IMPL(Name, what)                                                       \
  template <typename... SkTwinT>                                                               \
  inline auto Name(SK_TWIN_NOT_YET_PARAMS) {                                                   \
    static_assert(::sk_twin::kNotYet<SkTwinT...>,                                              \
                  "the CPU twin does not implement " what " yet (or not this form of it)");    \
    return 0;                                                                                  \
  }                                                                                            \
  template <typename SkTwinT, auto SkTwinV, auto... SkTwinVs>                                  \
  inline auto Name(SK_TWIN_NOT_YET_PARAMS) {                                                   \
    static_assert(::sk_twin::kNotYet<SkTwinT>,                                                 \
                  "the CPU twin does not implement " what " yet (or not this form of it)");    \
    return 0;                                                                                  \
  }                                                                                            \
  template <typename SkTwinT, typename SkTwinU, auto SkTwinV, auto... SkTwinVs>                \
  inline auto Name(SK_TWIN_NOT_YET_PARAMS) {                                                   \
    static_assert(::sk_twin::kNotYet<SkTwinT>,                                                 \
                  "the CPU twin does not implement " what " yet (or not this form of it)");    \
    return 0;                                                                                  \
  }                                                                                            \
  template <auto SkTwinV, auto... SkTwinVs>                                                    \
  inline auto Name(SK_TWIN_NOT_YET_PARAMS) {                                                   \
    static_assert(::sk_twin::kNotYet<decltype(SkTwinV)>,                                       \
                  "the CPU twin does not implement " what " yet (or not this form of it)");    \
    return 0;                                                                                  \
  }
// In namespace AscendC: the API function AscendC::Name.
#define SK_TWIN_NOT_YET(Name) SK_TWIN_NOT_YET_IMPL(Name, "AscendC::" #Name)
// At global scope: a CCE intrinsic the Ascend C headers declare there.
#define SK_TWIN_NOT_YET_INTRINSIC(Name) SK_TWIN_NOT_YET_IMPL(Name, "the intrinsic " #Name)

// Ordered as ops-math's 910B kernels use them (python -m sk twin calls).
namespace AscendC {
SK_TWIN_NOT_YET(GatherMask)
SK_TWIN_NOT_YET(Gather)
SK_TWIN_NOT_YET(CompareScalar)
SK_TWIN_NOT_YET(ArithProgression)
SK_TWIN_NOT_YET(DataCacheClean)
SK_TWIN_NOT_YET(And)
SK_TWIN_NOT_YET(Or)
SK_TWIN_NOT_YET(Not)
SK_TWIN_NOT_YET(ShiftRight)
SK_TWIN_NOT_YET(ShiftLeft)
SK_TWIN_NOT_YET(Axpy)
SK_TWIN_NOT_YET(Brcb)
SK_TWIN_NOT_YET(Copy)
SK_TWIN_NOT_YET(MrgSort)
SK_TWIN_NOT_YET(PairReduceSum)
SK_TWIN_NOT_YET(WholeReduceSum)
SK_TWIN_NOT_YET(WholeReduceMax)
SK_TWIN_NOT_YET(WholeReduceMin)
SK_TWIN_NOT_YET(BlockReduceSum)
SK_TWIN_NOT_YET(BlockReduceMax)
SK_TWIN_NOT_YET(BlockReduceMin)
SK_TWIN_NOT_YET(CreateVecIndex)
SK_TWIN_NOT_YET(Power)
SK_TWIN_NOT_YET(Floor)
SK_TWIN_NOT_YET(Trunc)
SK_TWIN_NOT_YET(TransDataTo5HD)
SK_TWIN_NOT_YET(SetVectorMask)
SK_TWIN_NOT_YET(ResetMask)
SK_TWIN_NOT_YET(SetMaskNorm)
SK_TWIN_NOT_YET(SetMaskCount)
SK_TWIN_NOT_YET(LoadData)
SK_TWIN_NOT_YET(Mmad)
SK_TWIN_NOT_YET(Fixpipe)
SK_TWIN_NOT_YET(LoadDataWithTranspose)
SK_TWIN_NOT_YET(SetFixPipeConfig)
SK_TWIN_NOT_YET(BroadCast)
SK_TWIN_NOT_YET(Sort)
SK_TWIN_NOT_YET(Extract)
SK_TWIN_NOT_YET(Concat)
SK_TWIN_NOT_YET(Transpose)
SK_TWIN_NOT_YET(Sin)
SK_TWIN_NOT_YET(Cos)
SK_TWIN_NOT_YET(Tanh)
SK_TWIN_NOT_YET(Sign)
SK_TWIN_NOT_YET(Round)
SK_TWIN_NOT_YET(Ceil)
SK_TWIN_NOT_YET(Erf)
SK_TWIN_NOT_YET(SubRelu)
// The advanced APIs (adv_api/...: math, activation, normalization, pad, quantization, sort).
SK_TWIN_NOT_YET(Tan)
SK_TWIN_NOT_YET(Asin)
SK_TWIN_NOT_YET(Acos)
SK_TWIN_NOT_YET(Atan)
SK_TWIN_NOT_YET(Sinh)
SK_TWIN_NOT_YET(Cosh)
SK_TWIN_NOT_YET(Asinh)
SK_TWIN_NOT_YET(Acosh)
SK_TWIN_NOT_YET(Atanh)
SK_TWIN_NOT_YET(Erfc)
SK_TWIN_NOT_YET(Fma)
SK_TWIN_NOT_YET(Frac)
SK_TWIN_NOT_YET(Digamma)
SK_TWIN_NOT_YET(Lgamma)
SK_TWIN_NOT_YET(Log)
SK_TWIN_NOT_YET(Log2)
SK_TWIN_NOT_YET(Log10)
SK_TWIN_NOT_YET(Xor)
SK_TWIN_NOT_YET(ClampMax)
SK_TWIN_NOT_YET(ClampMin)
SK_TWIN_NOT_YET(CumSum)
SK_TWIN_NOT_YET(Mean)
SK_TWIN_NOT_YET(Pad)
SK_TWIN_NOT_YET(UnPad)
SK_TWIN_NOT_YET(SoftMax)
SK_TWIN_NOT_YET(SimpleSoftMax)
SK_TWIN_NOT_YET(LogSoftMax)
SK_TWIN_NOT_YET(SoftmaxFlash)
SK_TWIN_NOT_YET(SoftmaxFlashV2)
SK_TWIN_NOT_YET(SoftmaxGrad)
SK_TWIN_NOT_YET(Gelu)
SK_TWIN_NOT_YET(FasterGelu)
SK_TWIN_NOT_YET(Silu)
SK_TWIN_NOT_YET(Swish)
SK_TWIN_NOT_YET(Sigmoid)
SK_TWIN_NOT_YET(SwiGLU)
SK_TWIN_NOT_YET(GeGLU)
SK_TWIN_NOT_YET(ReGLU)
SK_TWIN_NOT_YET(LayerNorm)
SK_TWIN_NOT_YET(RmsNorm)
SK_TWIN_NOT_YET(BatchNorm)
SK_TWIN_NOT_YET(GroupNorm)
SK_TWIN_NOT_YET(DeepNorm)
SK_TWIN_NOT_YET(Normalize)
SK_TWIN_NOT_YET(AscendQuant)
SK_TWIN_NOT_YET(AscendAntiQuant)
SK_TWIN_NOT_YET(DropOut)
SK_TWIN_NOT_YET(TopK)
SK_TWIN_NOT_YET(ConfusionTranspose)
SK_TWIN_NOT_YET(SetDeqScale)
}  // namespace AscendC

SK_TWIN_NOT_YET_INTRINSIC(set_vector_mask)
SK_TWIN_NOT_YET_INTRINSIC(set_mask_norm)
SK_TWIN_NOT_YET_INTRINSIC(set_mask_count)
SK_TWIN_NOT_YET_INTRINSIC(vector_dup)
SK_TWIN_NOT_YET_INTRINSIC(copy_gm_to_ubuf_align_b16)
SK_TWIN_NOT_YET_INTRINSIC(copy_gm_to_ubuf_align_b32)
SK_TWIN_NOT_YET_INTRINSIC(copy_ubuf_to_gm_align_b16)
SK_TWIN_NOT_YET_INTRINSIC(copy_ubuf_to_gm_align_b32)
SK_TWIN_NOT_YET_INTRINSIC(set_mov_pad_val)
SK_TWIN_NOT_YET_INTRINSIC(set_cmpmask)
SK_TWIN_NOT_YET_INTRINSIC(get_rsvd_cnt)
SK_TWIN_NOT_YET_INTRINSIC(vgather)
SK_TWIN_NOT_YET_INTRINSIC(vmuls)
SK_TWIN_NOT_YET_INTRINSIC(vadds)
SK_TWIN_NOT_YET_INTRINSIC(vadd)
SK_TWIN_NOT_YET_INTRINSIC(vmax)
SK_TWIN_NOT_YET_INTRINSIC(vmin)
SK_TWIN_NOT_YET_INTRINSIC(vcmax)
SK_TWIN_NOT_YET_INTRINSIC(vcmin)
SK_TWIN_NOT_YET_INTRINSIC(vsel)
SK_TWIN_NOT_YET_INTRINSIC(vreducev2)
SK_TWIN_NOT_YET_INTRINSIC(vconv_s162f32)
SK_TWIN_NOT_YET_INTRINSIC(vconv_bf162f32)
SK_TWIN_NOT_YET_INTRINSIC(vconv_f322bf16r)
SK_TWIN_NOT_YET_INTRINSIC(vconv_f322s16r)
SK_TWIN_NOT_YET_INTRINSIC(vconv_f162f32)
SK_TWIN_NOT_YET_INTRINSIC(vcmpv_eq)
SK_TWIN_NOT_YET_INTRINSIC(vcmpv_ne)
SK_TWIN_NOT_YET_INTRINSIC(vcmpv_gt)
SK_TWIN_NOT_YET_INTRINSIC(vcmpv_ge)
SK_TWIN_NOT_YET_INTRINSIC(vcmpv_lt)
SK_TWIN_NOT_YET_INTRINSIC(vcmpv_le)
SK_TWIN_NOT_YET_INTRINSIC(vcmpvs_eq)

#endif  // SK_TWIN_NOT_YET_H_
