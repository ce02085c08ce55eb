// The convolution's data path of one AIC (sk_twin_conv.h), written from the public Ascend C documentation of
// LoadData "卷积数据搬运" v2 (Atlas A2/A3) and its reference pseudo-code:
//
// img2col. The source in L1 is an NC1HWC0 feature map of one batch: C1 = channelSize / C0 blocks of l1H x l1W
// pixels of C0 channels (C0 = 32 bytes / sizeof(T)), element (c1, h, w, c) at ((c1*l1H + h)*l1W + w)*C0 + c.
// The filter (filterH x filterW, +256 each with filterSizeH/W) slides with strides and dilations over the map
// padded by padList [left, right, top, bottom] with the pad value; Wout = (l1W + left + right - dilated filter
// width) / strideW + 1. The img2col matrix T has a row m per window position (ho = m / Wout, wo = m % Wout) and a
// column k per (c1, kh, kw, c) with k / C0 = c1*filterH*filterW + kh*filterW + kw: T[m][k] is the pixel at
// h = ho*strideH + kh*dilationH - top, w = wo*strideW + kw*dilationW - left, or the pad value outside the map.
// Rows past the last window continue the same formula (the hardware has no notion of Hout).
//
// The instruction writes the window [mStartPt, +mExtension) x [kStartPt, +kExtension) of T, as rows m' and
// columns k' from 0, rows rounded up to whole 16-row fractals:
//   L0A (A2), enTranspose false: A = T in the Zz layout of src/cube.cc (fractal (m'/16, k'/C0)).
//   L0A, enTranspose true (16-bit types): A = T^T (A's row is k', its column m'), Zz.
//   L0B (B2): B = T^T's transpose as Mmad reads B, i.e. B's K index is m' and its N index k' (Zn layout of
//             src/cube.cc); the documented automatic transpose of the L1->L0B path. 16/32-bit types only.
#include <cstring>
#include <string>

#include "ascendc.h"
#include "sk_twin_conv_abi.h"

namespace sk_twin {
namespace {

AscendState& ConvState(const char* hook) { return CurrentWorker(hook).ascendc; }

void Range(uint64_t v, uint64_t lo, uint64_t hi, const char* name, const std::string& call) {
  if (v < lo || v > hi) FailRule(call, std::string(name) + " is " + Num(v), std::string(name) + " in [" + Num(lo) + ", " + Num(hi) + "]");
}

const char* FmName(uint32_t mode) { return mode == 0 ? "FmatrixMode::FMATRIX_LEFT" : "FmatrixMode::FMATRIX_RIGHT"; }

}  // namespace
}  // namespace sk_twin

using sk_twin::FailRule;
using sk_twin::Num;

extern "C" {

void sk_twin_conv_set_fmatrix(uint32_t l1h, uint32_t l1w, const uint8_t* pad_list, uint32_t mode) {
  const std::string call = "SetFmatrix(l1H " + Num(l1h) + ", l1W " + Num(l1w) + ", padList {" + Num(pad_list[0]) +
                           ", " + Num(pad_list[1]) + ", " + Num(pad_list[2]) + ", " + Num(pad_list[3]) + "}, " +
                           (mode <= 1 ? sk_twin::FmName(mode) : Num(mode)) + ")";
  sk_twin::Range(mode, 0, 1, "fmatrixMode", call);
  sk_twin::Range(l1h, 0, 32767, "l1H", call);
  sk_twin::Range(l1w, 0, 32767, "l1W", call);
  sk_twin::AscendState& st = sk_twin::ConvState("SetFmatrix");
  st.fm_set[mode] = true;
  st.fm_h[mode] = l1h;
  st.fm_w[mode] = l1w;
  std::memcpy(st.fm_pad[mode], pad_list, 4);
}

void sk_twin_conv_set_pad_value(uint64_t bits, uint32_t elem) {
  sk_twin::AscendState& st = sk_twin::ConvState("SetLoadDataPaddingValue");
  st.ld_pad_set = true;
  st.ld_pad_bits = bits;
  st.ld_pad_elem = elem;
}

void sk_twin_conv_set_repeat(uint32_t stride, uint32_t time, uint32_t mode) {
  const std::string call = "SetLoadDataRepeat(LoadDataRepeatParam{repeatStride " + Num(stride) + ", repeatTime " +
                           Num(time) + ", repeatMode " + Num(mode) + "})";
  sk_twin::ConvState("SetLoadDataRepeat");
  sk_twin::Range(mode, 0, 1, "repeatMode", call);
  // One iteration is LoadData 3D as written; the repeated forms move the window between iterations in ways the
  // twin does not model yet, so they stop here rather than load one iteration only.
  if (time != 1) {
    FailRule(call, "repeatTime is " + Num(time),
             "repeatTime 1 (the CPU twin does not implement LoadData 3D's repeat mode yet)");
  }
}

void sk_twin_conv_set_boundary(uint32_t value) {
  sk_twin::ConvState("SetLoadDataBoundary");
  if (value != 0) {
    FailRule("SetLoadDataBoundary(" + Num(value) + ")", "an L1 boundary of " + Num(value),
             "0, no boundary (the CPU twin does not implement LoadData 3D's L1 wrap-around yet)");
  }
}

void sk_twin_conv_load3d(const SkTwinLocalRef* dst, const SkTwinLocalRef* src, uint32_t dtype, const uint32_t* p,
                         uint64_t pad_bits, uint32_t set_fmatrix, uint32_t set_pad) {
  const uint64_t e = sk_twin::DtypeSize(dtype), c0 = 32 / e;
  std::string call = "LoadData<" + std::string(sk_twin::DtypeName(dtype)) + ">(L1->" +
                     (sk_twin::LocalMemOf(*dst) == sk_twin::kMemL0b ? "L0B" : "L0A") +
                     ", LoadData3DParamsV2{l1H " + Num(p[SK_TWIN_L3D_L1H]) + ", l1W " + Num(p[SK_TWIN_L3D_L1W]) +
                     ", channelSize " + Num(p[SK_TWIN_L3D_CHANNEL]) + ", kExtension " + Num(p[SK_TWIN_L3D_K_EXT]) +
                     ", mExtension " + Num(p[SK_TWIN_L3D_M_EXT]) + ", kStartPt " + Num(p[SK_TWIN_L3D_K_START]) +
                     ", mStartPt " + Num(p[SK_TWIN_L3D_M_START]) + ", stride " + Num(p[SK_TWIN_L3D_STRIDE_H]) + "x" +
                     Num(p[SK_TWIN_L3D_STRIDE_W]) + ", filter " + Num(p[SK_TWIN_L3D_FILTER_H]) + "x" +
                     Num(p[SK_TWIN_L3D_FILTER_W]) + ", dilation " + Num(p[SK_TWIN_L3D_DIL_H]) + "x" +
                     Num(p[SK_TWIN_L3D_DIL_W]) + ", padList {" + Num(p[SK_TWIN_L3D_PAD_L]) + ", " +
                     Num(p[SK_TWIN_L3D_PAD_R]) + ", " + Num(p[SK_TWIN_L3D_PAD_T]) + ", " + Num(p[SK_TWIN_L3D_PAD_B]) +
                     "}, enTranspose " + Num(p[SK_TWIN_L3D_TRANSPOSE]) + "})";
  sk_twin::AscendState& st = sk_twin::ConvState("LoadData");
  const uint32_t fm = p[SK_TWIN_L3D_FM_CTRL];
  // The API writes the registers first (IsResetLoad3dConfig), then issues the instruction, which reads them.
  if (set_fmatrix) {
    sk_twin::Range(p[SK_TWIN_L3D_L1H], 0, 32767, "l1H", call);
    sk_twin::Range(p[SK_TWIN_L3D_L1W], 0, 32767, "l1W", call);
    st.fm_set[fm] = true;
    st.fm_h[fm] = p[SK_TWIN_L3D_L1H];
    st.fm_w[fm] = p[SK_TWIN_L3D_L1W];
    for (int i = 0; i < 4; ++i) st.fm_pad[fm][i] = static_cast<uint8_t>(p[SK_TWIN_L3D_PAD_L + i]);
  } else if (!st.fm_set[fm]) {
    FailRule(call, std::string("IsResetLoad3dConfig.isSetFMatrix is false and no SetFmatrix(..., ") +
                       sk_twin::FmName(fm) + ") came before it",
             "SetFmatrix first, or isSetFMatrix true");
  }
  if (set_pad) {
    st.ld_pad_set = true;
    st.ld_pad_bits = pad_bits;
    st.ld_pad_elem = static_cast<uint32_t>(e);
  } else if (!st.ld_pad_set) {
    FailRule(call, "IsResetLoad3dConfig.isSetPadding is false and no SetLoadDataPaddingValue came before it",
             "SetLoadDataPaddingValue first, or isSetPadding true");
  } else if (st.ld_pad_elem != e) {
    FailRule(call, "the pad register holds a " + Num(st.ld_pad_elem) + "-byte value (SetLoadDataPaddingValue)",
             "a pad value of the loaded type's " + Num(e) + " bytes");
  }
  const uint32_t mem = sk_twin::LocalMemOf(*dst);
  if (mem != sk_twin::kMemL0a && mem != sk_twin::kMemL0b) {
    FailRule(call, std::string("dst is in ") + (mem == sk_twin::kMemCount ? "no memory" : sk_twin::MemName(mem)),
             "dst in TPosition::A2 (L0A) or B2 (L0B)");
  }
  if (sk_twin::LocalMemOf(*src) != sk_twin::kMemL1) {
    FailRule(call, std::string("src is in ") + sk_twin::MemName(sk_twin::LocalMemOf(*src)), "src in TPosition::A1/B1 (L1)");
  }
  sk_twin::CheckLocalAlign(*dst, 512, call, "dst");
  sk_twin::CheckLocalAlign(*src, 32, call, "src");
  const uint64_t l1h = st.fm_h[fm], l1w = st.fm_w[fm];
  const uint64_t pl = st.fm_pad[fm][0], pr = st.fm_pad[fm][1], pt = st.fm_pad[fm][2], pb = st.fm_pad[fm][3];
  const uint64_t ch = p[SK_TWIN_L3D_CHANNEL], k_ext = p[SK_TWIN_L3D_K_EXT], m_ext = p[SK_TWIN_L3D_M_EXT];
  const uint64_t k_start = p[SK_TWIN_L3D_K_START], m_start = p[SK_TWIN_L3D_M_START];
  const uint64_t sw = p[SK_TWIN_L3D_STRIDE_W], sh = p[SK_TWIN_L3D_STRIDE_H];
  const uint64_t fw = p[SK_TWIN_L3D_FILTER_W] + (p[SK_TWIN_L3D_SIZE_W] ? 256 : 0);
  const uint64_t fh = p[SK_TWIN_L3D_FILTER_H] + (p[SK_TWIN_L3D_SIZE_H] ? 256 : 0);
  const uint64_t dw = p[SK_TWIN_L3D_DIL_W], dh = p[SK_TWIN_L3D_DIL_H];
  sk_twin::Range(ch, 0, 65535, "channelSize", call);
  sk_twin::Range(k_ext, 0, 65535, "kExtension", call);
  sk_twin::Range(m_ext, 0, 65535, "mExtension", call);
  sk_twin::Range(k_start, 0, 65535, "kStartPt", call);
  sk_twin::Range(m_start, 0, 32767, "mStartPt", call);
  sk_twin::Range(sw, 0, 63, "strideW", call);
  sk_twin::Range(sh, 0, 63, "strideH", call);
  sk_twin::Range(p[SK_TWIN_L3D_FILTER_W], 0, 255, "filterW", call);
  sk_twin::Range(p[SK_TWIN_L3D_FILTER_H], 0, 255, "filterH", call);
  sk_twin::Range(dw, 0, 255, "dilationFilterW", call);
  sk_twin::Range(dh, 0, 255, "dilationFilterH", call);
  if (p[SK_TWIN_L3D_SMALL_K]) FailRule(call, "enSmallK is true", "enSmallK false (no longer supported, as documented)");
  // A NOP, as documented.
  if (l1h == 0 || l1w == 0 || ch == 0 || k_ext == 0 || m_ext == 0 || fw == 0 || fh == 0) return;
  if (sw == 0 || sh == 0 || dw == 0 || dh == 0) {
    FailRule(call, "a stride or dilation of 0", "strides and dilations of at least 1 (the twin's img2col)");
  }
  if (ch % c0 != 0) {
    FailRule(call, "channelSize " + Num(ch) + " is not a multiple of C0 = " + Num(c0),
             "channelSize a multiple of " + Num(c0) + " (the CPU twin does not implement the 4/8-channel forms yet)");
  }
  if (k_start % c0 != 0 || k_ext % c0 != 0) {
    FailRule(call, "kStartPt " + Num(k_start) + " / kExtension " + Num(k_ext) + " not whole C0 columns",
             "multiples of C0 = " + Num(c0));
  }
  const bool to_b = mem == sk_twin::kMemL0b;
  const bool transpose = !to_b && p[SK_TWIN_L3D_TRANSPOSE] != 0;
  if (transpose && e != 2) {
    FailRule(call, "enTranspose with a " + Num(e) + "-byte type",
             "enTranspose with half/bfloat16_t (the CPU twin does not implement the 32-bit transposed form yet)");
  }
  if (to_b && e == 1) FailRule(call, "an 8-bit type to L0B", "half, bfloat16_t, int32_t, uint32_t, float to L0B");
  const uint64_t c1n = ch / c0, kwin = fh * fw, k_total = c1n * kwin * c0;
  if (k_start + k_ext > k_total) {
    FailRule(call, "columns [" + Num(k_start) + ", " + Num(k_start + k_ext) + ") of an img2col matrix of " +
                       Num(k_total) + " (channelSize x filterH x filterW)",
             "kStartPt + kExtension <= " + Num(k_total));
  }
  const uint64_t wd = (fw - 1) * dw + 1, hd = (fh - 1) * dh + 1;
  if (l1w + pl + pr < wd || l1h + pt + pb < hd) {
    FailRule(call, "the dilated filter (" + Num(hd) + "x" + Num(wd) + ") is larger than the padded map (" +
                       Num(l1h + pt + pb) + "x" + Num(l1w + pl + pr) + ")",
             "a filter that fits the padded feature map");
  }
  const uint64_t wout = (l1w + pl + pr - wd) / sw + 1;
  const uint64_t rows = (m_ext + 15) / 16 * 16;  // whole fractals
  const uint8_t* in = sk_twin::LocalAccess(*src, 0, c1n * l1h * l1w * c0 * e, call, "src");
  uint64_t dst_bytes;
  if (!to_b) dst_bytes = rows * k_ext * e;  // (rows/16) x (k_ext/C0) fractals of 512 bytes
  else dst_bytes = (rows / c0) * ((k_ext + 15) / 16) * 512;
  uint8_t* out = sk_twin::LocalAccess(*dst, 0, dst_bytes, call, "dst");
  const uint64_t kb_n = k_ext / c0, mb_n = rows / 16, nb_n = (k_ext + 15) / 16;
  for (uint64_t mi = 0; mi < rows; ++mi) {
    const uint64_t m = m_start + mi, ho = m / wout, wo = m % wout;
    for (uint64_t ki = 0; ki < k_ext; ++ki) {
      const uint64_t k = k_start + ki, kb = k / c0, c = k % c0;
      const uint64_t c1 = kb / kwin, kh = (kb % kwin) / fw, kw = (kb % kwin) % fw;
      const int64_t h = static_cast<int64_t>(ho * sh + kh * dh) - static_cast<int64_t>(pt);
      const int64_t w = static_cast<int64_t>(wo * sw + kw * dw) - static_cast<int64_t>(pl);
      uint64_t at;
      if (!to_b && !transpose) at = ((mi / 16) * kb_n + ki / c0) * 16 * c0 + (mi % 16) * c0 + ki % c0;
      else if (!to_b) at = ((ki / 16) * mb_n + mi / 16) * 256 + (ki % 16) * 16 + mi % 16;
      else at = ((mi / c0) * nb_n + ki / 16) * 16 * c0 + (ki % 16) * c0 + mi % c0;
      uint8_t* o = out + at * e;
      if (h < 0 || w < 0 || h >= static_cast<int64_t>(l1h) || w >= static_cast<int64_t>(l1w)) {
        std::memcpy(o, &st.ld_pad_bits, e);  // little-endian: the value's own bytes
      } else {
        std::memcpy(o, in + (((c1 * l1h + static_cast<uint64_t>(h)) * l1w + static_cast<uint64_t>(w)) * c0 + c) * e, e);
      }
    }
  }
}

void sk_twin_conv_load2d_gm(const SkTwinLocalRef* dst, const SkTwinGlobalRef* src, uint32_t dtype, const uint32_t* p) {
  const uint32_t start = p[0], repeat = p[1], src_stride = p[2], dst_gap = p[3], transpose = p[4], addr_mode = p[5];
  const std::string call = "LoadData<" + std::string(sk_twin::DtypeName(dtype)) + ">(GM->" +
                           sk_twin::MemName(sk_twin::LocalMemOf(*dst)) + ", LoadData2DParams{startIndex " + Num(start) +
                           ", repeatTimes " + Num(repeat) + ", srcStride " + Num(src_stride) + ", dstGap " +
                           Num(dst_gap) + ", ifTranspose " + Num(transpose) + "})";
  sk_twin::ConvState("LoadData");
  const uint32_t mem = sk_twin::LocalMemOf(*dst);
  if (mem != sk_twin::kMemL0a && mem != sk_twin::kMemL0b && mem != sk_twin::kMemL1) {
    FailRule(call, std::string("dst is in ") + (mem == sk_twin::kMemCount ? "no memory" : sk_twin::MemName(mem)),
             "dst in TPosition::A1/B1 (L1), A2 (L0A) or B2 (L0B)");
  }
  sk_twin::CheckLocalAlign(*dst, mem == sk_twin::kMemL1 ? 32 : 512, call, "dst");
  sk_twin::Range(repeat, 0, 255, "repeatTimes", call);
  if (transpose) FailRule(call, "ifTranspose is true", "ifTranspose false (only the L1 -> L0 paths transpose)");
  if (addr_mode != 0) FailRule(call, "addrMode is " + Num(addr_mode), "addrMode 0, increasing (the twin's only form)");
  if (repeat == 0) return;  // a NOP, as documented
  if (src->base == nullptr) FailRule(call, "the GlobalTensor has no memory", "call SetGlobalBuffer(ptr, size) first");
  const uint64_t src_end = (uint64_t{start} + (uint64_t{repeat} - 1) * src_stride + 1) * 512;
  if (src->size_bytes != 0 && src->offset_bytes + src_end > src->size_bytes) {
    sk_twin_global_oob(src, src->offset_bytes, src_end, call.c_str());
  }
  const uint8_t* in = src->base + src->offset_bytes;
  uint8_t* out = sk_twin::LocalAccess(*dst, 0, ((uint64_t{repeat} - 1) * (1 + uint64_t{dst_gap}) + 1) * 512, call, "dst");
  for (uint64_t r = 0; r < repeat; ++r) {
    std::memcpy(out + r * (1 + uint64_t{dst_gap}) * 512, in + (start + r * src_stride) * 512, 512);
  }
  (void)dtype;
}

void sk_twin_conv_load2d_transpose(const SkTwinLocalRef* dst, const SkTwinLocalRef* src, uint32_t dtype,
                                   const uint32_t* p) {
  const uint32_t start = p[0], repeat = p[1], src_stride = p[2], dst_gap = p[3], frac_gap = p[4], addr_mode = p[5];
  const std::string call = "LoadDataWithTranspose<" + std::string(sk_twin::DtypeName(dtype)) +
                           ">(LoadData2dTransposeParams{startIndex " + Num(start) + ", repeatTimes " + Num(repeat) +
                           ", srcStride " + Num(src_stride) + ", dstGap " + Num(dst_gap) + ", dstFracGap " +
                           Num(frac_gap) + ", addrMode " + Num(addr_mode) + "})";
  sk_twin::ConvState("LoadDataWithTranspose");
  const uint32_t mem = sk_twin::LocalMemOf(*dst);
  if (mem != sk_twin::kMemL0a && mem != sk_twin::kMemL0b) {
    FailRule(call, std::string("dst is in ") + (mem == sk_twin::kMemCount ? "no memory" : sk_twin::MemName(mem)),
             "dst in TPosition::A2 (L0A) or B2 (L0B)");
  }
  if (sk_twin::LocalMemOf(*src) != sk_twin::kMemL1) {
    FailRule(call, std::string("src is in ") + sk_twin::MemName(sk_twin::LocalMemOf(*src)), "src in TPosition::A1/B1 (L1)");
  }
  sk_twin::CheckLocalAlign(*dst, 512, call, "dst");
  sk_twin::CheckLocalAlign(*src, 32, call, "src");
  sk_twin::Range(repeat, 0, 255, "repeatTimes", call);
  if (addr_mode != 0) FailRule(call, "addrMode is " + Num(addr_mode), "addrMode 0, increasing (the twin's only form)");
  if (repeat == 0) return;  // a NOP, as documented
  // A square of q x q elements made of nf fractals of 16 rows x c0 columns: 8-bit fractals stack (rows j*16..),
  // 32-bit ones sit side by side (columns j*8..), a 16-bit fractal is the square.
  const uint64_t e = sk_twin::DtypeSize(dtype), c0 = 32 / e, q = e == 1 ? 32 : 16, nf = q * q * e / 512;
  const uint64_t square = nf * 512;
  const uint64_t src_end = (uint64_t{start} + (uint64_t{repeat} - 1) * src_stride + 1) * square;
  const uint64_t dst_end = ((uint64_t{repeat} - 1) * (1 + uint64_t{dst_gap}) + (nf - 1) * (1 + uint64_t{frac_gap}) + 1) * 512;
  const uint8_t* in = sk_twin::LocalAccess(*src, 0, src_end, call, "src");
  uint8_t* out = sk_twin::LocalAccess(*dst, 0, dst_end, call, "dst");
  auto at = [&](uint64_t row, uint64_t col, uint64_t frac_step) {  // byte offset of square element (row, col)
    const uint64_t j = e == 1 ? row / 16 : col / c0, r = e == 1 ? row % 16 : row, c = e == 1 ? col : col % c0;
    return j * frac_step * 512 + (r * c0 + c) * e;
  };
  for (uint64_t i = 0; i < repeat; ++i) {
    const uint8_t* s = in + (start + i * src_stride) * square;
    uint8_t* d = out + i * (1 + uint64_t{dst_gap}) * 512;
    for (uint64_t row = 0; row < q; ++row) {
      for (uint64_t col = 0; col < q; ++col) std::memcpy(d + at(row, col, 1 + frac_gap), s + at(col, row, 1), e);
    }
  }
}

}  // extern "C"
