// sk_twin_cube.h - the cube's basic data path on the CPU twin, from the public Ascend C documentation:
// DataCopy GM->L1 with Nd2NzParams, LoadData L1->L0A/L0B with LoadData2DParams, Mmad L0A x L0B -> L0C
// (MmadParams) and Fixpipe L0C->GM with NZ2ND (FixpipeParamsV220, CFG_ROW_MAJOR). The layouts, numerics
// and checked rules are in src/cube.cc; LoadData 3D is sk_twin_conv.h's, Mmad with a bias tensor sk_twin_bias.h's.
// The other forms (LoadData2DParamsV2, Fixpipe to UB, ReLU or channel split) stop at compile time
// (sk_twin_not_yet.h) or at the call, naming what is missing.
#ifndef SK_TWIN_CUBE_H_
#define SK_TWIN_CUBE_H_

#include <cstdint>

#include "sk_twin.h"
#include "sk_twin_ascendc.h"
#include "sk_twin_cube_types.h"

namespace AscendC {

struct Nd2NzParams {
  Nd2NzParams() = default;
  Nd2NzParams(uint16_t ndNumIn, uint16_t nValueIn, uint16_t dValueIn, uint16_t srcNdMatrixStrideIn,
              uint16_t srcDValueIn, uint16_t dstNzC0StrideIn, uint16_t dstNzNStrideIn, uint16_t dstNzMatrixStrideIn)
      : ndNum(ndNumIn), nValue(nValueIn), dValue(dValueIn), srcNdMatrixStride(srcNdMatrixStrideIn),
        srcDValue(srcDValueIn), dstNzC0Stride(dstNzC0StrideIn), dstNzNStride(dstNzNStrideIn),
        dstNzMatrixStride(dstNzMatrixStrideIn) {}
  uint16_t ndNum = 0;
  uint16_t nValue = 0;
  uint16_t dValue = 0;
  uint16_t srcNdMatrixStride = 0;
  uint16_t srcDValue = 0;
  uint16_t dstNzC0Stride = 0;
  uint16_t dstNzNStride = 0;
  uint16_t dstNzMatrixStride = 0;
};

struct LoadData2DParams {
  LoadData2DParams() = default;
  LoadData2DParams(uint16_t startIndexIn, uint8_t repeatTimesIn, uint16_t srcStrideIn, uint8_t sidIn,
                   uint16_t dstGapIn, bool ifTransposeIn, uint8_t addrModeIn)
      : startIndex(startIndexIn), repeatTimes(repeatTimesIn), srcStride(srcStrideIn), sid(sidIn), dstGap(dstGapIn),
        ifTranspose(ifTransposeIn), addrMode(addrModeIn) {}
  uint16_t startIndex = 0;
  uint8_t repeatTimes = 0;
  uint16_t srcStride = 0;
  uint8_t sid = 0;
  uint16_t dstGap = 0;
  bool ifTranspose = false;
  uint8_t addrMode = 0;
};

// The older spelling kernels also use (Ascend C declares it an alias).
using LoadData2dParams = LoadData2DParams;

// The fields of LoadData2DParamsV2, so that kernels naming it compile; its LoadData form is not implemented.
struct LoadData2DParamsV2 {
  uint32_t mStartPosition = 0;
  uint32_t kStartPosition = 0;
  uint16_t mStep = 0;
  uint16_t kStep = 0;
  int32_t srcStride = 0;
  uint16_t dstStride = 0;
  bool ifTranspose = false;
  uint8_t sid = 0;
};

// The fields of LoadData3DParamsV2 (the convolution's img2col load), with their documented defaults; its LoadData
// form is in sk_twin_conv.h. U: padValue's type.
template <typename U>
struct LoadData3DParamsV2 {
  LoadData3DParamsV2() = default;
  // The documented positional forms (CANN's kernels pass a const uint8_t[4] pad list, which no aggregate copies).
  LoadData3DParamsV2(const uint8_t padListIn[4], uint16_t l1HIn, uint16_t l1WIn, uint16_t channelSizeIn,
                     uint16_t kExtensionIn, uint16_t mExtensionIn, uint16_t kStartPtIn, uint16_t mStartPtIn,
                     uint8_t strideWIn, uint8_t strideHIn, uint8_t filterWIn, uint8_t filterHIn,
                     uint8_t dilationFilterWIn, uint8_t dilationFilterHIn, bool enTransposeIn, bool enSmallKIn,
                     U padValueIn)
      : l1H(l1HIn), l1W(l1WIn), channelSize(channelSizeIn), kExtension(kExtensionIn), mExtension(mExtensionIn),
        kStartPt(kStartPtIn), mStartPt(mStartPtIn), strideW(strideWIn), strideH(strideHIn), filterW(filterWIn),
        filterH(filterHIn), dilationFilterW(dilationFilterWIn), dilationFilterH(dilationFilterHIn),
        enTranspose(enTransposeIn), enSmallK(enSmallKIn), padValue(padValueIn) {
    for (int i = 0; i < 4; ++i) padList[i] = padListIn[i];
  }
  LoadData3DParamsV2(const uint8_t padListIn[4], uint16_t l1HIn, uint16_t l1WIn, uint16_t channelSizeIn,
                     uint16_t kExtensionIn, uint16_t mExtensionIn, uint16_t kStartPtIn, uint16_t mStartPtIn,
                     uint8_t strideWIn, uint8_t strideHIn, uint8_t filterWIn, uint8_t filterHIn,
                     uint8_t dilationFilterWIn, uint8_t dilationFilterHIn, bool enTransposeIn, bool enSmallKIn,
                     U padValueIn, bool filterSizeWIn, bool filterSizeHIn, bool fMatrixCtrlIn)
      : LoadData3DParamsV2(padListIn, l1HIn, l1WIn, channelSizeIn, kExtensionIn, mExtensionIn, kStartPtIn, mStartPtIn,
                           strideWIn, strideHIn, filterWIn, filterHIn, dilationFilterWIn, dilationFilterHIn,
                           enTransposeIn, enSmallKIn, padValueIn) {
    filterSizeW = filterSizeWIn;
    filterSizeH = filterSizeHIn;
    fMatrixCtrl = fMatrixCtrlIn;
  }
  uint8_t padList[4] = {0, 0, 0, 0};
  uint16_t l1H = 0;
  uint16_t l1W = 0;
  uint16_t channelSize = 0;
  uint16_t kExtension = 0;
  uint16_t mExtension = 0;
  uint16_t kStartPt = 0;
  uint16_t mStartPt = 0;
  uint8_t strideW = 1;
  uint8_t strideH = 1;
  uint8_t filterW = 1;
  uint8_t filterH = 1;
  uint8_t dilationFilterW = 1;
  uint8_t dilationFilterH = 1;
  bool enTranspose = false;
  bool enSmallK = false;
  U padValue = 0;
  bool filterSizeW = false;
  bool filterSizeH = false;
  bool fMatrixCtrl = false;
};

struct MmadParams {
  MmadParams() = default;
  MmadParams(uint16_t mIn, uint16_t nIn, uint16_t kIn, bool isBiasIn, int32_t fmOffsetIn, bool enSsparseIn,
             bool enWinogradAIn, bool enWinogradBIn)
      : m(mIn), n(nIn), k(kIn), isBias(isBiasIn), fmOffset(fmOffsetIn), enSsparse(enSsparseIn),
        enWinogradA(enWinogradAIn), enWinogradB(enWinogradBIn) {}
  // The Atlas A2/A3 form: L0C hand-over flag, C from the bias table or not, C starting from 0 or accumulating.
  MmadParams(uint16_t mIn, uint16_t nIn, uint16_t kIn, uint8_t unitFlagIn, bool cmatrixSourceIn, bool cmatrixInitValIn)
      : m(mIn), n(nIn), k(kIn), unitFlag(unitFlagIn), cmatrixSource(cmatrixSourceIn), cmatrixInitVal(cmatrixInitValIn) {}
  uint16_t m = 0;
  uint16_t n = 0;
  uint16_t k = 0;
  bool isBias = false;
  int32_t fmOffset = 0;  // not used from Atlas A2 on
  bool enSsparse = false;
  bool enWinogradA = false;
  bool enWinogradB = false;
  uint8_t unitFlag = 0;  // L0C hand-over between Mmad and Fixpipe: a synchronisation, nothing to compute
  bool kDirectionAlign = false;
  bool cmatrixSource = false;  // true: C starts from the bias table (C2): the Mmad form with a bias tensor
  bool cmatrixInitVal = true;
};

enum class CO2Layout : uint8_t { NZ = 0, ROW_MAJOR, COLUMN_MAJOR };
struct FixpipeConfig {
  CO2Layout format;
  bool isToUB = false;
};
constexpr FixpipeConfig CFG_NZ = {CO2Layout::NZ};
constexpr FixpipeConfig CFG_ROW_MAJOR = {CO2Layout::ROW_MAJOR};
constexpr FixpipeConfig CFG_COLUMN_MAJOR = {CO2Layout::COLUMN_MAJOR};

struct FixpipeParamsV220 {
  FixpipeParamsV220() = default;
  FixpipeParamsV220(uint16_t nSizeIn, uint16_t mSizeIn, uint16_t srcStrideIn, uint32_t dstStrideIn, bool reluEnIn)
      : nSize(nSizeIn), mSize(mSizeIn), srcStride(srcStrideIn), dstStride(dstStrideIn), reluEn(reluEnIn) {}
  uint16_t nSize = 0;
  uint16_t mSize = 0;
  uint16_t srcStride = 0;
  uint32_t dstStride = 0;
  QuantMode_t quantPre = QuantMode_t::NoQuant;
  uint64_t deqScalar = 0;
  uint16_t ndNum = 1;
  uint16_t srcNdStride = 0;
  uint16_t dstNdStride = 0;
  bool reluEn = false;
  uint8_t unitFlag = 0;
  bool isChannelSplit = false;
};

template <typename T>
inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const Nd2NzParams& p) {
  const uint32_t f[8] = {p.ndNum,     p.nValue,        p.dValue,       p.srcNdMatrixStride,
                         p.srcDValue, p.dstNzC0Stride, p.dstNzNStride, p.dstNzMatrixStride};
  ::sk_twin_cube_nd2nz(&dst.ref_, &src.g_, sk_detail::Dtype<T>::value, f);
}

template <typename U>
struct InitConstValueParams {
  InitConstValueParams() = default;
  InitConstValueParams(uint16_t repeatTimesIn, uint16_t blockNumIn, uint16_t dstGapIn, U initValueIn)
      : repeatTimes(repeatTimesIn), blockNum(blockNumIn), dstGap(dstGapIn), initValue(initValueIn) {}
  uint16_t repeatTimes = 0;
  uint16_t blockNum = 0;
  uint16_t dstGap = 0;
  U initValue = 0;
};

// Fill (InitConstValue, its earlier name): repeatTimes runs of blockNum blocks set to initValue, dstGap blocks
// between runs; a block is 32 bytes in L1, 512 bytes in L0A/L0B.
template <typename T, typename U = T>
inline void Fill(const LocalTensor<T>& dst, const InitConstValueParams<U>& p) {
  static_assert(std::is_same<T, U>::value, "AscendC::Fill: initValue's type must be the tensor's type");
  static_assert(sk_detail::kOneOf<T, int16_t, uint16_t, half, bfloat16_t, int32_t, uint32_t, float>,
                "AscendC::Fill: the CPU twin (as Atlas A2/A3) supports T = int16_t, uint16_t, half, bfloat16_t, "
                "int32_t, uint32_t, float");
  const T v = p.initValue;
  ::sk_twin_cube_fill(&dst.ref_, sizeof(T), sk_detail::Bits(v), p.repeatTimes, p.blockNum, p.dstGap);
}
template <typename T, typename U = T>
inline void InitConstValue(const LocalTensor<T>& dst, const InitConstValueParams<U>& p) {
  Fill(dst, p);
}

template <typename T>
inline void LoadData(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LoadData2DParams& p) {
  if (p.addrMode != 0) ::sk_twin_fail("LoadData(L1->L0): addrMode is 1; allowed: 0 (only GM->L1 may decrement)");
  const uint32_t f[5] = {p.startIndex, p.repeatTimes, p.srcStride, p.dstGap, p.ifTranspose ? 1u : 0u};
  ::sk_twin_cube_load2d(&dst.ref_, &src.ref_, sk_detail::Dtype<T>::value, f);
}

namespace sk_detail {
template <typename Dst, typename Src>
constexpr bool kMmadTypes = (std::is_same<Dst, float>::value && kOneOf<Src, half, bfloat16_t, float>) ||
                            (std::is_same<Dst, int32_t>::value && std::is_same<Src, int8_t>::value);
}  // namespace sk_detail

template <typename T, typename U, typename S>
inline void Mmad(const LocalTensor<T>& dst, const LocalTensor<U>& fm, const LocalTensor<S>& filter,
                 const MmadParams& p) {
  static_assert(std::is_same<U, S>::value && sk_detail::kMmadTypes<T, U>,
                "AscendC::Mmad: the CPU twin supports fm/filter/dst of half/half/float, bfloat16_t/bfloat16_t/float, "
                "float/float/float, int8_t/int8_t/int32_t");
  if (p.cmatrixSource) {
    ::sk_twin_fail("Mmad: MmadParams::cmatrixSource is true (C from the bias table) but no bias tensor is given; "
                   "call Mmad(dst, fm, filter, bias, params) with the bias in TPosition::C2");
  }
  ::sk_twin_cube_mmad(&dst.ref_, &fm.ref_, &filter.ref_, sk_detail::Dtype<U>::value, sk_detail::Dtype<T>::value, p.m,
                      p.n, p.k, (p.isBias || !p.cmatrixInitVal) ? 1u : 0u);
}

// Which of M or N the cube walks first while Mmad produces its output fractals (SetMMLayoutTransform(true) is
// SetMMRowMajor). The twin computes every output element whole, so the walk order changes no value.
inline void SetMMColumnMajor() {}
inline void SetMMRowMajor() {}
inline void SetMMLayoutTransform(bool rowMajor) { (void)rowMajor; }

// Fixpipe (L0C -> GM / L1) is in sk_twin_fixpipe.h with the other ways out of L0C.

}  // namespace AscendC

#endif  // SK_TWIN_CUBE_H_
