// sk_twin_conv.h - the convolution's cube data path on the CPU twin, from the public Ascend C documentation
// (basic_api LoadData "卷积数据搬运" v2 and the matrix-load helper registers):
//   LoadData(dst, src, LoadData3DParamsV2) - img2col of an NC1HWC0 feature map in L1 into L0A (Zz, optionally
//     transposed for 16-bit types) or L0B (Zn: the img2col matrix is B's K x N), as Atlas A2/A3 do;
//   SetFmatrix / SetLoadDataPaddingValue - the Feature Map (left/right) and Pad registers that LoadData reads when
//     its IsResetLoad3dConfig says the call does not set them;
//   SetLoadDataRepeat / SetLoadDataBoundary - the repeat and L1-boundary registers (one repeat and no boundary are
//     what the twin implements; anything else fails at the call, naming it);
//   SetHF32Mode / SetHF32TransMode - HF32 off is the twin's float Mmad; turning it on fails at the call;
//   LoadDataWithTranspose (LoadData2dTransposeParams) - fractal squares transposed on the way to L0A/L0B;
//   LoadData(LocalTensor, GlobalTensor, LoadData2DParams) - fractals from GM.
// And the toolkit constants and type helpers these kernels name (PAD_SIZE, BLOCK_CUBE, CUBE_MAX_SIZE,
// BYTE_PER_FRACTAL, TOTAL_L0A/L0B/L0C_SIZE, HALF_FACTOR, BoolInst/TrueType/FalseType, Conditional). The layouts, numerics and checks are in src/conv.cc.
#ifndef SK_TWIN_CONV_H_
#define SK_TWIN_CONV_H_

#include <cstdint>
#include <type_traits>

#include "sk_twin_ascendc.h"
#include "sk_twin_conv_abi.h"
#include "sk_twin_cube.h"

namespace AscendC {

// kernel_utils_constants.h (device side; the cube buffers' sizes of Atlas A2/A3, the twin's arenas too).
// BLOCK_CUBE, CUBE_MAX_SIZE, BYTE_PER_FRACTAL and TOTAL_L0C_SIZE live in sk_twin_cube_types.h.
const uint8_t PAD_SIZE = 4;
const int32_t HALF_FACTOR = 2;
const int32_t DOUBLE_FACTOR = 2;
const uint32_t TOTAL_L0A_SIZE = 64 * 1024;
const uint32_t TOTAL_L0B_SIZE = 64 * 1024;

template <bool condition, class T1, class T2>
struct Conditional {
  using type = T1;
};
template <class T1, class T2>
struct Conditional<false, T1, T2> {
  using type = T2;
};

template <bool v>
struct BoolInst {
  static constexpr bool value = v;
  using Type = BoolInst<v>;
};
using TrueType = BoolInst<true>;
using FalseType = BoolInst<false>;

enum class FmatrixMode : uint8_t {
  FMATRIX_LEFT = 0,
  FMATRIX_RIGHT = 1,
};

// Whether LoadData 3D writes its own l1H/l1W/padList (isSetFMatrix) and padValue (isSetPadding) to the registers
// before loading; false: the registers as SetFmatrix / SetLoadDataPaddingValue left them.
struct IsResetLoad3dConfig {
  constexpr IsResetLoad3dConfig(const bool isSetFMatrixIn, const bool isSetPaddingIn)
      : isSetFMatrix(isSetFMatrixIn), isSetPadding(isSetPaddingIn) {}
  bool isSetFMatrix = true;
  bool isSetPadding = true;
};
constexpr IsResetLoad3dConfig IS_RESER_LOAD3D_DEFAULT_CONFIG = {true, true};

struct LoadDataRepeatParam {
  LoadDataRepeatParam() {}
  LoadDataRepeatParam(const uint16_t repeatStrideIn, const uint8_t repeatTimeIn, const uint8_t repeatModeIn)
      : repeatStride(repeatStrideIn), repeatTime(repeatTimeIn), repeatMode(repeatModeIn) {}
  uint16_t repeatStride = 0;
  uint8_t repeatTime = 1;
  uint8_t repeatMode = 0;
  uint8_t reserved = 0;
};

inline void SetFmatrix(uint16_t l1H, uint16_t l1W, const uint8_t padList[4], const FmatrixMode& fmatrixMode) {
  ::sk_twin_conv_set_fmatrix(l1H, l1W, padList, static_cast<uint32_t>(fmatrixMode));
}

template <typename T>
inline void SetLoadDataPaddingValue(const T padValue) {
  static_assert(sizeof(T) <= 8, "AscendC::SetLoadDataPaddingValue: a value of at most 8 bytes");
  ::sk_twin_conv_set_pad_value(sk_detail::Bits(padValue), sizeof(T));
}

inline void SetLoadDataRepeat(const LoadDataRepeatParam& repeatParams) {
  ::sk_twin_conv_set_repeat(repeatParams.repeatStride, repeatParams.repeatTime, repeatParams.repeatMode);
}

inline void SetLoadDataBoundary(uint32_t boundaryValue) { ::sk_twin_conv_set_boundary(boundaryValue); }

enum class HF32Mode : uint8_t { DISABLE = 0, ENABLE = 1 };
enum class HF32TransMode : uint8_t { ROUND_TO_NEAREST_EVEN = 0, ROUND_TO_ZERO = 1 };

// HF32 (float Mmad through a 19-bit intermediate) is not the twin's float Mmad: turning it on stops the launch
// rather than computing in full float without a word. The rounding mode only matters with HF32 on.
inline void SetHF32Mode(bool hf32Mode) {
  if (hf32Mode) {
    ::sk_twin_fail("SetHF32Mode(true): the CPU twin's Mmad computes float in full precision and does not "
                   "implement HF32 yet (allowed: false)");
  }
}
inline void SetHF32Mode(HF32Mode mode) { SetHF32Mode(mode == HF32Mode::ENABLE); }
inline void SetHF32TransMode(bool) {}
inline void SetHF32TransMode(HF32TransMode) {}

// The toolkit's other spelling of LoadData2DParams (kernel_struct_mm.h), which stft and the matmul stages use.
using LoadData2dParams = LoadData2DParams;

struct LoadData2dTransposeParams {
  LoadData2dTransposeParams() {}
  LoadData2dTransposeParams(const uint16_t startIndexIn, const uint8_t repeatTimesIn, const uint16_t srcStrideIn,
                            const uint16_t dstGapIn, const uint16_t dstfracGapIn, const uint8_t addrModeIn)
      : startIndex(startIndexIn), repeatTimes(repeatTimesIn), srcStride(srcStrideIn), dstGap(dstGapIn),
        dstFracGap(dstfracGapIn), addrMode(addrModeIn) {}
  LoadData2dTransposeParams(const uint16_t startIndexIn, const uint8_t repeatTimesIn, const uint16_t srcStrideIn,
                            const uint16_t dstGapIn, const uint16_t dstfracGapIn)
      : startIndex(startIndexIn), repeatTimes(repeatTimesIn), srcStride(srcStrideIn), dstGap(dstGapIn),
        dstFracGap(dstfracGapIn) {}
  uint16_t startIndex = 0;
  uint8_t repeatTimes = 0;
  uint16_t srcStride = 0;
  uint16_t dstGap = 0;
  uint16_t dstFracGap = 0;
  uint8_t addrMode = 0;
};

// LoadData 2D from GM (GM -> L0A/L0B, and L1 as CANN's convolution kernels load their weights): repeatTimes 512-byte
// fractals, fractal startIndex + r * srcStride of src to fractal r * (1 + dstGap) of dst, as from L1 but without
// the transpose (which only the L1 paths have).
template <typename T>
inline void LoadData(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const LoadData2DParams& p) {
  static_assert(sk_detail::kOneOf<T, int8_t, uint8_t, int16_t, uint16_t, half, bfloat16_t, int32_t, uint32_t, float>,
                "AscendC::LoadData(GM, LoadData2DParams): the CPU twin (as Atlas A2/A3) supports T = uint8_t, int8_t, "
                "uint16_t, int16_t, half, bfloat16_t, uint32_t, int32_t, float");
  const uint32_t f[6] = {p.startIndex, p.repeatTimes, p.srcStride, p.dstGap, p.ifTranspose ? 1u : 0u, p.addrMode};
  ::sk_twin_conv_load2d_gm(&dst.ref_, &src.g_, sk_detail::Dtype<T>::value, f);
}

// LoadDataWithTranspose (L1 -> L0A/L0B): per repeat one square of 512-byte fractals (16 x 16 of 16-bit, two
// 16 x 8 of 32-bit side by side, two 16 x 32 of 8-bit one over the other) is transposed and split again.
template <typename T>
inline void LoadDataWithTranspose(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                                  const LoadData2dTransposeParams& p) {
  static_assert(sk_detail::kOneOf<T, int8_t, uint8_t, half, bfloat16_t, int32_t, uint32_t, float>,
                "AscendC::LoadDataWithTranspose: the CPU twin (as Atlas A2/A3) supports T = int8_t, uint8_t, half, "
                "bfloat16_t, int32_t, uint32_t, float (int4b_t not yet)");
  const uint32_t f[6] = {p.startIndex, p.repeatTimes, p.srcStride, p.dstGap, p.dstFracGap, p.addrMode};
  ::sk_twin_conv_load2d_transpose(&dst.ref_, &src.ref_, sk_detail::Dtype<T>::value, f);
}

namespace sk_detail {
// LoadData 3D v2 on Atlas A2/A3: the types of TPosition A1/A2 (B1/B2 take the 16/32-bit ones).
template <typename T>
constexpr bool kLoad3dTypes = kOneOf<T, int8_t, uint8_t, half, bfloat16_t, int32_t, uint32_t, float>;
}  // namespace sk_detail

template <typename T, const IsResetLoad3dConfig& defaultConfig = IS_RESER_LOAD3D_DEFAULT_CONFIG, typename U = T,
          typename std::enable_if<std::is_same<T, U>::value, bool>::type = true>
inline void LoadData(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LoadData3DParamsV2<U>& p) {
  static_assert(sk_detail::kLoad3dTypes<T>,
                "AscendC::LoadData(LoadData3DParamsV2): the CPU twin (as Atlas A2/A3) supports T = int8_t, uint8_t, "
                "half, bfloat16_t, int32_t, uint32_t, float");
  const uint32_t f[SK_TWIN_L3D_FIELDS] = {
      p.padList[0],    p.padList[1],        p.padList[2],        p.padList[3],       p.l1H,
      p.l1W,           p.channelSize,       p.kExtension,        p.mExtension,       p.kStartPt,
      p.mStartPt,      p.strideW,           p.strideH,           p.filterW,          p.filterH,
      p.dilationFilterW, p.dilationFilterH, p.enTranspose ? 1u : 0u, p.enSmallK ? 1u : 0u,
      p.filterSizeW ? 1u : 0u, p.filterSizeH ? 1u : 0u, p.fMatrixCtrl ? 1u : 0u};
  const T pad = p.padValue;
  ::sk_twin_conv_load3d(&dst.ref_, &src.ref_, sk_detail::Dtype<T>::value, f, sk_detail::Bits(pad),
                        defaultConfig.isSetFMatrix ? 1u : 0u, defaultConfig.isSetPadding ? 1u : 0u);
}

// LoadData3DParamsV2Pro: LoadData3DParamsV2's window and filter packed in two words (the toolkit's bit layout):
// extConfig = kExtension | mExtension << 16 | kStartPt << 32 | mStartPt << 48; filterConfig = strideW | strideH << 8
// | filterW << 16 | filterH << 24 | dilationFilterW << 32 | dilationFilterH << 40. The map (l1H, l1W, padList) and
// the pad value come from the registers (Load3DSetFMatrixCal / SetFmatrix, SetLoadDataPaddingValue).
struct LoadData3DParamsV2Pro {
  LoadData3DParamsV2Pro() {}
  LoadData3DParamsV2Pro(uint16_t channelSizeIn, bool enTransposeIn, bool enSmallKIn, bool filterSizeWIn,
                        bool filterSizeHIn, bool fMatrixCtrlIn, uint64_t extConfigIn, uint64_t filterConfigIn)
      : channelSize(channelSizeIn), enTranspose(enTransposeIn), enSmallK(enSmallKIn), filterSizeW(filterSizeWIn),
        filterSizeH(filterSizeHIn), fMatrixCtrl(fMatrixCtrlIn), extConfig(extConfigIn), filterConfig(filterConfigIn) {}
  uint16_t channelSize = 0;
  bool enTranspose = false;
  bool enSmallK = false;
  bool filterSizeW = false;
  bool filterSizeH = false;
  bool fMatrixCtrl = false;
  uint64_t extConfig = 0;
  uint64_t filterConfig = 0X10101010101;
};

// The Feature Map register as the 3D v1/v2Pro loads read it: SetFmatrix's left register.
inline void Load3DSetFMatrixCal(uint16_t l1H, uint16_t l1W, const uint8_t padList[4]) {
  SetFmatrix(l1H, l1W, padList, FmatrixMode::FMATRIX_LEFT);
}

template <typename T>
inline void LoadData(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LoadData3DParamsV2Pro& p) {
  static_assert(sk_detail::kLoad3dTypes<T>,
                "AscendC::LoadData(LoadData3DParamsV2Pro): the CPU twin (as Atlas A2/A3) supports T = int8_t, "
                "uint8_t, half, bfloat16_t, int32_t, uint32_t, float");
  const auto field = [](uint64_t word, uint32_t shift, uint64_t mask) {
    return static_cast<uint32_t>((word >> shift) & mask);
  };
  const uint64_t e = p.extConfig, fc = p.filterConfig;
  const uint32_t f[SK_TWIN_L3D_FIELDS] = {
      0, 0, 0, 0, 0, 0, p.channelSize, field(e, 0, 0xFFFF), field(e, 16, 0xFFFF), field(e, 32, 0xFFFF),
      field(e, 48, 0xFFFF), field(fc, 0, 0xFF), field(fc, 8, 0xFF), field(fc, 16, 0xFF), field(fc, 24, 0xFF),
      field(fc, 32, 0xFF), field(fc, 40, 0xFF), p.enTranspose ? 1u : 0u, p.enSmallK ? 1u : 0u,
      p.filterSizeW ? 1u : 0u, p.filterSizeH ? 1u : 0u, p.fMatrixCtrl ? 1u : 0u};
  ::sk_twin_conv_load3d(&dst.ref_, &src.ref_, sk_detail::Dtype<T>::value, f, 0, 0u, 0u);
}

// The toolkit's implementation names behind LoadData and Mmad, which CANN's conv3d_backprop kernels call directly:
// the same instructions (the toolkit's public functions are these with a debug check in front).
template <typename T, const IsResetLoad3dConfig& defaultConfig = IS_RESER_LOAD3D_DEFAULT_CONFIG, typename U = T,
          typename std::enable_if<std::is_same<T, U>::value, bool>::type = true>
inline void LoadDataImpl(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LoadData3DParamsV2<U>& p) {
  LoadData<T, defaultConfig>(dst, src, p);
}
template <typename T>
inline void LoadDataImpl(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LoadData2DParams& p) {
  LoadData(dst, src, p);
}
template <typename T>
inline void LoadDataImpl(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const LoadData2DParams& p) {
  LoadData(dst, src, p);
}
template <typename T, typename U, typename S>
inline void MmadImpl(const LocalTensor<T>& dst, const LocalTensor<U>& fm, const LocalTensor<S>& filter,
                     const MmadParams& p) {
  Mmad(dst, fm, filter, p);
}

}  // namespace AscendC

#endif  // SK_TWIN_CONV_H_
