/*
 * sk_twin_conv_abi.h - the C ABI behind the convolution's data path (sk_twin_conv.h): the Feature Map and
 * Pad registers of LoadData 3D (SetFmatrix, SetLoadDataPaddingValue, SetLoadDataRepeat, SetLoadDataBoundary)
 * LoadData with LoadData3DParamsV2 (img2col from L1 to L0A/L0B) and LoadDataWithTranspose. Implemented in src/conv.cc; every hook
 * checks the documented rules and fails the launch naming the call and its values.
 */
#ifndef SK_TWIN_CONV_ABI_H_
#define SK_TWIN_CONV_ABI_H_

#include <stdint.h>

#include "sk_twin.h"

#ifdef __cplusplus
extern "C" {
#endif

/* SetFmatrix: l1H, l1W and padList [left, right, top, bottom] of the left (mode 0) or right (1) register. */
void sk_twin_conv_set_fmatrix(uint32_t l1h, uint32_t l1w, const uint8_t* pad_list, uint32_t mode);
/* SetLoadDataPaddingValue: the pad register, the value's bytes (elem of them, little-endian in bits). */
void sk_twin_conv_set_pad_value(uint64_t bits, uint32_t elem);
/* SetLoadDataRepeat: repeatStride, repeatTime, repeatMode. */
void sk_twin_conv_set_repeat(uint32_t stride, uint32_t time, uint32_t mode);
/* SetLoadDataBoundary: the L1 boundary register (0: none). */
void sk_twin_conv_set_boundary(uint32_t value);

/* Fields of LoadData3DParamsV2, in this order, in p[]. */
#define SK_TWIN_L3D_PAD_L 0
#define SK_TWIN_L3D_PAD_R 1
#define SK_TWIN_L3D_PAD_T 2
#define SK_TWIN_L3D_PAD_B 3
#define SK_TWIN_L3D_L1H 4
#define SK_TWIN_L3D_L1W 5
#define SK_TWIN_L3D_CHANNEL 6
#define SK_TWIN_L3D_K_EXT 7
#define SK_TWIN_L3D_M_EXT 8
#define SK_TWIN_L3D_K_START 9
#define SK_TWIN_L3D_M_START 10
#define SK_TWIN_L3D_STRIDE_W 11
#define SK_TWIN_L3D_STRIDE_H 12
#define SK_TWIN_L3D_FILTER_W 13
#define SK_TWIN_L3D_FILTER_H 14
#define SK_TWIN_L3D_DIL_W 15
#define SK_TWIN_L3D_DIL_H 16
#define SK_TWIN_L3D_TRANSPOSE 17
#define SK_TWIN_L3D_SMALL_K 18
#define SK_TWIN_L3D_SIZE_W 19
#define SK_TWIN_L3D_SIZE_H 20
#define SK_TWIN_L3D_FM_CTRL 21
#define SK_TWIN_L3D_FIELDS 22

/* LoadData(dst, src, LoadData3DParamsV2): set_fmatrix / set_pad: the IsResetLoad3dConfig flags (the call writes
 * its l1H/l1W/padList resp. padValue to the registers first); pad_bits: padValue's bytes. */
void sk_twin_conv_load3d(const SkTwinLocalRef* dst, const SkTwinLocalRef* src, uint32_t dtype, const uint32_t* p,
                         uint64_t pad_bits, uint32_t set_fmatrix, uint32_t set_pad);

/* LoadData 2D from GM: p = startIndex, repeatTimes, srcStride, dstGap, ifTranspose, addrMode. */
void sk_twin_conv_load2d_gm(const SkTwinLocalRef* dst, const SkTwinGlobalRef* src, uint32_t dtype, const uint32_t* p);
/* LoadDataWithTranspose: p = startIndex, repeatTimes, srcStride, dstGap, dstFracGap, addrMode. */
void sk_twin_conv_load2d_transpose(const SkTwinLocalRef* dst, const SkTwinLocalRef* src, uint32_t dtype,
                                   const uint32_t* p);

#ifdef __cplusplus
}
#endif

#endif /* SK_TWIN_CONV_ABI_H_ */
