// The quantisation high-level API on the twin (include/sk_twin_quant.h), written from the public Ascend C
// documentation of AscendDequant as Atlas A2/A3 run it:
//   dst[r][c] = dstT(float(src[r][c]) * float(scale[c] or the scalar))  for r < m, c < calCount,
// src rows n int32_t elements apart, dst rows n rounded up to 32 bytes of dstT apart; dst elements from calCount to
// the end of a row are left as they were (undefined on the hardware). The product is one float multiplication
// (the vector unit's), the int32_t -> float and float -> dstT conversions round to nearest even (CAST_NONE / RINT);
// a uint64_t scale element carries its float in the low 32 bits. The documented rules are checked: operands in UB,
// n * 4 bytes a multiple of 32, m * n within src, calCount in (0, n], calCount within the scale tensor, dst large
// enough, src and dst not overlapping. As on the hardware the call does nothing on an AIC.
#include <cstring>
#include <string>

#include "ascendc.h"
#include "core.h"
#include "elem.h"
#include "sk_twin_quant_hooks.h"

namespace sk_twin {
namespace {

void CheckUb(const SkTwinLocalRef& t, const std::string& call, const char* role) {
  const uint32_t mem = LocalMemOf(t);
  if (mem == kMemUb) return;
  FailRule(call,
           std::string(role) + " is " + (mem == kMemCount ? "a tensor never allocated" : "in " + std::string(MemName(mem))),
           std::string(role) + " in TPosition::VECIN/VECCALC/VECOUT (UB)");
}

float ScaleAt(uint32_t dtype, const uint8_t* p) {
  if (dtype == SK_TWIN_DT_U64) {  // the float is the low 32 bits; the high ones are control bits this API ignores
    uint32_t low;
    std::memcpy(&low, p, 4);  // little-endian: the low word first
    float f;
    std::memcpy(&f, &low, 4);
    return f;
  }
  return static_cast<float>(LoadF(dtype, p));
}

}  // namespace
}  // namespace sk_twin

using sk_twin::FailRule;
using sk_twin::Num;

extern "C" {

void sk_twin_ascend_dequant(const SkTwinLocalRef* dst, uint32_t dst_dtype, const SkTwinLocalRef* src,
                            const SkTwinLocalRef* scale, uint32_t scale_dtype, uint64_t scalar_bits,
                            const SkTwinLocalRef* tmp, uint32_t form, uint32_t m, uint32_t n, uint32_t cal,
                            uint64_t count, uint32_t single_row) {
  if (sk_twin::CurrentWorker("AscendDequant").type == sk_twin::CoreType::kAic) return;  // as the library does
  const std::string types = std::string(sk_twin::DtypeName(dst_dtype)) + ", " + sk_twin::DtypeName(scale_dtype);
  std::string call = "AscendDequant<" + types + ">(" +
                     (form == 0 ? "DequantParams{m " + Num(m) + ", n " + Num(n) + ", calCount " + Num(cal) + "}"
                                : "calCount " + Num(count)) +
                     (scale ? ", scale tensor" : ", scalar scale") + ")";
  sk_twin::CheckUb(*dst, call, "dstTensor");
  sk_twin::CheckUb(*src, call, "srcTensor");
  if (scale) sk_twin::CheckUb(*scale, call, "deqScale");
  if (tmp) {
    sk_twin::CheckUb(*tmp, call, "sharedTmpBuffer");
    sk_twin::LocalAccess(*tmp, 0, 0, call, "sharedTmpBuffer");  // alive
  }
  const uint64_t de = sk_twin::DtypeSize(dst_dtype);
  const uint64_t src_elems = src->bytes / 4, dst_elems = dst->bytes / de;
  const uint64_t scale_elems = scale ? scale->bytes / sk_twin::DtypeSize(scale_dtype) : 0;
  if (form == 1) {  // rows of the scale's length; calCount counts elements of src, row after row
    if (scale_elems == 0) FailRule(call, "deqScale has no elements", "a scale tensor of at least one element");
    if (src_elems % scale_elems != 0) {
      FailRule(call, "srcTensor has " + Num(src_elems) + " elements, not a multiple of deqScale's " + Num(scale_elems),
               "without DequantParams srcTensor is whole rows of deqScale.GetSize() elements");
    }
    if (scale_dtype == SK_TWIN_DT_U64 && scale_elems % 8 != 0) {
      FailRule(call, "deqScale (uint64_t) has " + Num(scale_elems) + " elements",
               "without DequantParams a uint64_t deqScale has a multiple of 8 elements");
    }
    if (count == 0 || count > src_elems) {
      FailRule(call, "calCount is " + Num(count), "calCount in [1, srcTensor.GetSize() " + Num(src_elems) + "]");
    }
    m = static_cast<uint32_t>(src_elems / scale_elems);
    n = cal = static_cast<uint32_t>(scale_elems);
  }
  const uint64_t per_block = 32 / de;
  if (single_row && m == 1 && cal != 0 && cal % per_block == 0 && n % cal == 0) {  // {1, n, cal} -> {n/cal, cal, cal}
    m = n / cal;
    n = cal;
  }
  if (form == 0) count = uint64_t{m} * n;
  if (n % 8 != 0) FailRule(call, "n is " + Num(n), "n a multiple of 8 (n int32_t elements fill whole 32-byte blocks)");
  if (uint64_t{m} * n > src_elems) {
    FailRule(call, "m * n is " + Num(uint64_t{m} * n) + " but srcTensor has " + Num(src_elems) + " elements",
             "m * n <= srcTensor.GetSize()");
  }
  if (cal == 0 || cal > n) FailRule(call, "calCount is " + Num(cal), "calCount in [1, n " + Num(n) + "]");
  if (scale && cal > scale_elems) {
    FailRule(call, "calCount is " + Num(cal) + " but deqScale has " + Num(scale_elems) + " elements",
             "calCount <= deqScale.GetSize()");
  }
  const uint64_t n_dst = (n + per_block - 1) / per_block * per_block;
  const uint64_t rows = (count + n - 1) / n;
  if (rows * n_dst > dst_elems) {
    FailRule(call, "dstTensor has " + Num(dst_elems) + " elements",
             "at least " + Num(rows * n_dst) + " (rows of n rounded up to 32 bytes of " +
                 sk_twin::DtypeName(dst_dtype) + ")");
  }
  if (src->buf == dst->buf && src->addr < uint64_t{dst->addr} + dst->bytes && dst->addr < uint64_t{src->addr} + src->bytes) {
    FailRule(call, "srcTensor and dstTensor overlap", "separate source and destination (no in-place AscendDequant)");
  }
  const uint8_t* in = sk_twin::LocalAccess(*src, 0, count * 4, call, "srcTensor");
  const uint8_t* sc = scale ? sk_twin::LocalAccess(*scale, 0, uint64_t{cal} * sk_twin::DtypeSize(scale_dtype), call,
                                                   "deqScale")
                            : nullptr;
  uint8_t* out = sk_twin::LocalAccess(*dst, 0, rows * n_dst * de, call, "dstTensor");
  const float scalar = scale ? 0.0f : sk_twin::ScaleAt(scale_dtype, reinterpret_cast<const uint8_t*>(&scalar_bits));
  const uint64_t se = sk_twin::DtypeSize(scale_dtype);
  for (uint64_t f = 0; f < count; ++f) {
    const uint64_t r = f / n, c = f % n;
    if (c >= cal) continue;
    int32_t x;
    std::memcpy(&x, in + f * 4, 4);
    const float s = sc ? sk_twin::ScaleAt(scale_dtype, sc + c * se) : scalar;
    const float v = static_cast<float>(x) * s;  // one float multiplication
    sk_twin::StoreF(dst_dtype, out + (r * n_dst + c) * de, v);
  }
}

}  // extern "C"
