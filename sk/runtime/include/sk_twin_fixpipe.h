// sk_twin_fixpipe.h - the ways out of L0C on the CPU twin, from the public Ascend C documentation: Fixpipe
// (FixpipeParamsV220) to GM or L1 with NZ2ND (CFG_ROW_MAJOR) or NZ2NZ (CFG_NZ), its quantisation modes NoQuant,
// F322F16, F322BF16, DEQF16 (deqScalar) and VDEQF16 (a uint64_t scale tensor in L1, the cbufWorkspace forms);
// DataCopy(L0C -> GM / L1) with DataCopyCO12DstParams, which reads the fixpipe registers SetFixpipeNz2ndFlag and
// SetFixpipePreQuantFlag set; and the unit-flag values UFMode0..3 kernels pass to MmadParams/unitFlag. The layouts,
// numerics and checked rules are in src/cube.cc (sk_twin_cube_fixpipe_move). ReLU, channel split, the 8-bit
// (REQ8/QF322B8_PRE) modes and CFG_COLUMN_MAJOR / to UB fail naming what is missing.
#ifndef SK_TWIN_FIXPIPE_H_
#define SK_TWIN_FIXPIPE_H_

#include <cstdint>
#include <type_traits>

#include "sk_twin_cube.h"
#include "sk_twin_quant_hooks.h"

// MmadParams/DataCopyCO12DstParams unitFlag values: 0 off, 2 on (the flag stays), 3 on (reset after the
// instruction); 1 is reserved. The Mmad-Fixpipe hand-over they tune is a synchronisation with nothing to compute.
enum SkTwinUnitFlagMode : uint8_t { UFMode0 = 0, UFMode1 = 1, UFMode2 = 2, UFMode3 = 3 };

namespace AscendC {

struct DataCopyCO12DstParams {
  DataCopyCO12DstParams() {}
  DataCopyCO12DstParams(const uint16_t nSizeIn, const uint16_t mSizeIn, const uint32_t dstStrideIn,
                        const uint16_t srcStrideIn, const QuantMode_t quantPreIn, const uint8_t reluPreIn,
                        const bool channelSplitIn, const bool nz2ndEnIn)
      : nSize(nSizeIn), mSize(mSizeIn), dstStride(dstStrideIn), srcStride(srcStrideIn), quantPre(quantPreIn),
        reluPre(reluPreIn), channelSplit(channelSplitIn), nz2ndEn(nz2ndEnIn) {}
  uint8_t sid = 0;
  uint16_t nSize = 0;
  uint16_t mSize = 0;
  uint32_t dstStride = 0;
  uint16_t srcStride = 0;
  uint8_t unitFlag = 0;
  uint8_t clipReluPre = 0;
  uint8_t eltWiseOp = 0;
  QuantMode_t quantPre = QuantMode_t::NoQuant;
  uint8_t reluPre = 0;
  bool channelSplit = false;
  bool nz2ndEn = false;
};

// The ND layout DataCopy(L0C -> ...) with nz2ndEn uses: ndNum matrices, srcNdStride * 1024 bytes apart in L0C,
// dstNdStride elements apart in the destination.
inline void SetFixpipeNz2ndFlag(uint16_t ndNum, uint16_t srcNdStride, uint16_t dstNdStride) {
  ::sk_twin_cube_set_nz2nd(ndNum, srcNdStride, dstNdStride);
}
// The scalar DataCopy(L0C -> ...) with quantPre DEQF16 scales by (Fixpipe takes FixpipeParamsV220::deqScalar).
inline void SetFixpipePreQuantFlag(uint64_t config) { ::sk_twin_cube_set_pre_quant(config); }

namespace sk_detail {
template <const FixpipeConfig& config>
constexpr void CheckFixpipeConfig() {
  static_assert(config.format != CO2Layout::COLUMN_MAJOR, "AscendC::Fixpipe: CFG_COLUMN_MAJOR (NZ2DN) exists on "
                                                           "Ascend 950 only; the CPU twin is Atlas A2/A3");
  static_assert(!config.isToUB, "the CPU twin does not implement AscendC::Fixpipe to UB yet");
}
template <typename T, typename U, const FixpipeConfig& config>
inline void FixpipeV220(const SkTwinGlobalRef* gm, const SkTwinLocalRef* l1, const LocalTensor<U>& src,
                        const SkTwinLocalRef* quant_tensor, const FixpipeParamsV220& p) {
  CheckFixpipeConfig<config>();
  SkTwinFixpipe f{};
  f.api = "Fixpipe";
  f.gm = gm;
  f.l1 = l1;
  f.src = &src.ref_;
  f.quant_tensor = quant_tensor;
  f.src_dtype = Dtype<U>::value;
  f.dst_dtype = Dtype<T>::value;
  f.n = p.nSize;
  f.m = p.mSize;
  f.src_stride = p.srcStride;
  f.dst_stride = p.dstStride;
  f.quant = static_cast<uint32_t>(p.quantPre);
  f.relu = p.reluEn ? 1u : 0u;
  f.channel_split = p.isChannelSplit ? 1u : 0u;
  f.nz2nd = config.format == CO2Layout::ROW_MAJOR ? 1u : 0u;
  f.nd_num = p.ndNum;
  f.src_nd_stride = p.srcNdStride;
  f.dst_nd_stride = p.dstNdStride;
  f.deq_scalar = p.deqScalar;
  ::sk_twin_cube_fixpipe_move(&f);
}
template <typename T, typename U>
inline void DataCopyCO1(const SkTwinGlobalRef* gm, const SkTwinLocalRef* l1, const LocalTensor<U>& src,
                        const DataCopyCO12DstParams& p) {
  uint32_t nd[3];
  uint64_t scalar = 0;
  ::sk_twin_cube_fixpipe_regs(nd, &scalar);
  SkTwinFixpipe f{};
  f.api = "DataCopy";
  f.gm = gm;
  f.l1 = l1;
  f.src = &src.ref_;
  f.src_dtype = Dtype<U>::value;
  f.dst_dtype = Dtype<T>::value;
  f.n = p.nSize;
  f.m = p.mSize;
  f.src_stride = p.srcStride;
  f.dst_stride = p.dstStride;
  f.quant = static_cast<uint32_t>(p.quantPre);
  f.relu = p.reluPre;
  f.channel_split = p.channelSplit ? 1u : 0u;
  f.nz2nd = p.nz2ndEn ? 1u : 0u;
  f.nd_num = nd[0];
  f.src_nd_stride = nd[1];
  f.dst_nd_stride = nd[2];
  f.deq_scalar = scalar;
  ::sk_twin_cube_fixpipe_move(&f);
}
}  // namespace sk_detail

// L0C -> GM.
template <typename T, typename U, const FixpipeConfig& config = CFG_ROW_MAJOR>
inline void Fixpipe(const GlobalTensor<T>& dst, const LocalTensor<U>& src, const FixpipeParamsV220& p) {
  sk_detail::FixpipeV220<T, U, config>(&dst.g_, nullptr, src, nullptr, p);
}
// L0C -> GM, VDEQF16 by the uint64_t scale tensor cbufWorkspace (L1).
template <typename T, typename U, const FixpipeConfig& config = CFG_ROW_MAJOR, typename S = uint64_t,
          typename std::enable_if<std::is_same<S, uint64_t>::value, bool>::type = true>
inline void Fixpipe(const GlobalTensor<T>& dst, const LocalTensor<U>& src, const LocalTensor<S>& cbufWorkspace,
                    const FixpipeParamsV220& p) {
  sk_detail::FixpipeV220<T, U, config>(&dst.g_, nullptr, src, &cbufWorkspace.ref_, p);
}
// L0C -> L1.
template <typename T, typename U, const FixpipeConfig& config = CFG_ROW_MAJOR>
inline void Fixpipe(const LocalTensor<T>& dst, const LocalTensor<U>& src, const FixpipeParamsV220& p) {
  sk_detail::FixpipeV220<T, U, config>(nullptr, &dst.ref_, src, nullptr, p);
}
template <typename T, typename U, const FixpipeConfig& config = CFG_ROW_MAJOR, typename S = uint64_t,
          typename std::enable_if<std::is_same<S, uint64_t>::value, bool>::type = true>
inline void Fixpipe(const LocalTensor<T>& dst, const LocalTensor<U>& src, const LocalTensor<S>& cbufWorkspace,
                    const FixpipeParamsV220& p) {
  sk_detail::FixpipeV220<T, U, config>(nullptr, &dst.ref_, src, &cbufWorkspace.ref_, p);
}

// DataCopy L0C -> GM / L1 (the same move; its ND layout and DEQF16 scalar come from the fixpipe registers).
template <typename T, typename U>
inline void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<U>& src, const DataCopyCO12DstParams& p) {
  sk_detail::DataCopyCO1<T, U>(&dst.g_, nullptr, src, p);
}
template <typename T, typename U>
inline void DataCopy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const DataCopyCO12DstParams& p) {
  sk_detail::DataCopyCO1<T, U>(nullptr, &dst.ref_, src, p);
}

// The earlier Fixpipe parameters (FixpipeParams<T>, T the L0C type), as the A2 library maps them onto the move:
// cburstNum bursts of 16 columns (n = 16 * cburstNum, or nz2ndParams.originalNSize with NZ2ND), burstLen in
// 32-byte blocks of the source (m = burstLen * 32 / 4 / 16 rows), srcStride the gap between bursts in 256-element
// fractals, dstStride the gap in 32-byte blocks (NZ) or the ND row length in elements (NZ2ND).
struct QuantParams {
  QuantParams() {}
  QuantParams(const QuantMode_t quantPreIn) : quantPre(quantPreIn) {}  // NOLINT: implicit as upstream
  QuantParams(const QuantMode_t quantPreIn, const uint64_t deqScalarIn) : quantPre(quantPreIn), deqScalar(deqScalarIn) {}
  QuantMode_t quantPre = QuantMode_t::NoQuant;
  uint64_t deqScalar = 0;
};

struct Nz2NdParams {
  Nz2NdParams() {}
  Nz2NdParams(const bool nz2ndEnIn, const uint16_t ndNumIn, const uint16_t srcNdStrideIn, const uint16_t dstNdStrideIn,
              const uint16_t originalNSizeIn)
      : nz2ndEn(nz2ndEnIn), ndNum(ndNumIn), srcNdStride(srcNdStrideIn), dstNdStride(dstNdStrideIn),
        originalNSize(originalNSizeIn) {}
  bool nz2ndEn = false;
  uint16_t ndNum = 1;
  uint16_t srcNdStride = 0;
  uint16_t dstNdStride = 0;
  uint16_t originalNSize = 0;
};

template <typename T = int32_t>
struct FixpipeParams {
  FixpipeParams() {}
  FixpipeParams(const uint16_t count, const uint16_t len, const uint16_t srcStrideIn, const uint32_t dstStrideIn)
      : cburstNum(count), burstLen(len), dstStride(dstStrideIn), srcStride(srcStrideIn) {}
  uint16_t cburstNum = 0;
  uint16_t burstLen = 0;
  uint32_t dstStride = 0;
  uint16_t srcStride = 0;
  QuantParams quantParams;
  bool reluEn = false;
  Nz2NdParams nz2ndParams;
  uint8_t unitFlag = 0;
};

namespace sk_detail {
template <typename T, typename U, typename S>
inline void FixpipeLegacy(const SkTwinGlobalRef* gm, const SkTwinLocalRef* l1, const LocalTensor<U>& src,
                          const SkTwinLocalRef* quant_tensor, const FixpipeParams<S>& p) {
  static_assert(std::is_same<U, S>::value, "AscendC::Fixpipe: FixpipeParams<T> takes T = the L0C tensor's type");
  const uint32_t m = uint32_t{p.burstLen} * 32 / 4 / 16, m16 = (m + 15) / 16 * 16;
  const bool nd = p.nz2ndParams.nz2ndEn;
  if (nd && p.nz2ndParams.originalNSize == 0) {
    ::sk_twin_fail("Fixpipe(FixpipeParams): nz2ndParams.nz2ndEn is true but originalNSize is 0; set originalNSize "
                   "(the N of the ND destination)");
  }
  SkTwinFixpipe f{};
  f.api = "Fixpipe";
  f.gm = gm;
  f.l1 = l1;
  f.src = &src.ref_;
  f.quant_tensor = quant_tensor;
  f.src_dtype = Dtype<U>::value;
  f.dst_dtype = Dtype<T>::value;
  f.n = nd ? p.nz2ndParams.originalNSize : uint32_t{p.cburstNum} * 16;
  f.m = m;
  f.src_stride = uint32_t{p.srcStride} * 16 + m16;
  f.dst_stride = nd ? p.dstStride : p.dstStride + uint32_t{p.burstLen} * sizeof(T) / 4;
  f.quant = static_cast<uint32_t>(p.quantParams.quantPre);
  f.relu = p.reluEn ? 1u : 0u;
  f.nz2nd = nd ? 1u : 0u;
  f.nd_num = p.nz2ndParams.ndNum;
  f.src_nd_stride = p.nz2ndParams.srcNdStride;
  f.dst_nd_stride = p.nz2ndParams.dstNdStride;
  f.deq_scalar = p.quantParams.deqScalar;
  ::sk_twin_cube_fixpipe_move(&f);
}
}  // namespace sk_detail

template <typename T, typename U, typename S>
inline void Fixpipe(const GlobalTensor<T>& dst, const LocalTensor<U>& src, const FixpipeParams<S>& p) {
  sk_detail::FixpipeLegacy<T, U, S>(&dst.g_, nullptr, src, nullptr, p);
}
template <typename T, typename U, typename S>
inline void Fixpipe(const LocalTensor<T>& dst, const LocalTensor<U>& src, const FixpipeParams<S>& p) {
  sk_detail::FixpipeLegacy<T, U, S>(nullptr, &dst.ref_, src, nullptr, p);
}
template <typename T, typename U, typename Q, typename S>
inline void Fixpipe(const GlobalTensor<T>& dst, const LocalTensor<U>& src, const LocalTensor<Q>& cbufWorkspace,
                    const FixpipeParams<S>& p) {
  static_assert(std::is_same<Q, uint64_t>::value, "AscendC::Fixpipe: the quantisation tensor is uint64_t");
  sk_detail::FixpipeLegacy<T, U, S>(&dst.g_, nullptr, src, &cbufWorkspace.ref_, p);
}
template <typename T, typename U, typename Q, typename S>
inline void Fixpipe(const LocalTensor<T>& dst, const LocalTensor<U>& src, const LocalTensor<Q>& cbufWorkspace,
                    const FixpipeParams<S>& p) {
  static_assert(std::is_same<Q, uint64_t>::value, "AscendC::Fixpipe: the quantisation tensor is uint64_t");
  sk_detail::FixpipeLegacy<T, U, S>(nullptr, &dst.ref_, src, &cbufWorkspace.ref_, p);
}

}  // namespace AscendC

#endif  // SK_TWIN_FIXPIPE_H_
