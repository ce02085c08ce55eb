// Internal Ascend C names that CANN's MC2 kernels (ops-transformer
// mc2/common/inc/kernel) call directly:
//   GetSubBlockIdxImpl()                       GetSubBlockIdx()
//   DuplicateIntrinsicsImpl(dst, v, repeat, dstBlockStride, dstRepeatStride)
//       the vector Duplicate at UB address dst under the mask register
//       (SetVectorMask / SetMaskCount as the kernel set it), repeat
//       256-byte repeats: Duplicate<T, false> on the buffer dst lies in, from dst.
#ifndef SK_TWIN_MC2_IMPL_H_
#define SK_TWIN_MC2_IMPL_H_

#include <cstdint>

namespace AscendC {

static inline int64_t GetSubBlockIdxImpl() { return GetSubBlockIdx(); }

template <typename T>
static inline void DuplicateIntrinsicsImpl(__ubuf__ T* dst, T value, uint8_t repeatTime, uint16_t dstBlockStride,
                                           uint8_t dstRepeatStride) {
  // dst: a GetPhyAddr address inside a live buffer, checked as the tensor from there to the buffer's end.
  LocalTensor<T> t;
  ::sk_twin_local_ref_at(reinterpret_cast<uint64_t>(dst), "DuplicateIntrinsicsImpl", &t.ref_);
  Duplicate<T, false>(t, value, uint64_t{0}, repeatTime, dstBlockStride, dstRepeatStride);
}

}  // namespace AscendC

#endif  // SK_TWIN_MC2_IMPL_H_
