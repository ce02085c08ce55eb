// The cube data path of one AIC, written from the public Ascend C documentation:
// DataCopy GM->L1 with ND2NZ, LoadData 2D (L1->L0A/L0B), Mmad (L0A x L0B -> L0C) and Fixpipe L0C->GM
// with NZ2ND. Each hook checks the documented rules (positions, address alignment, parameter ranges,
// buffer bounds) and fails the launch naming the call and the values.
//
// Layouts (C0 = 32 bytes / sizeof(T) elements; a fractal is 512 bytes):
//   L1 (NZ): column block j of C0 columns starts dstNzC0Stride*32 bytes after block j-1; row r of a block
//            is dstNzNStride*32 bytes after row r-1.
//   L0A (Zz): 16 x C0 fractals, row-major over the fractals (M/16 rows of K/C0 fractals), rows inside.
//   L0B (Zn): C0 x 16 fractals, row-major over the fractals (K/C0 rows of N/16 fractals), columns inside.
//   L0C (Nz): 16 x 16 fractals of float/int32_t, column-major over the fractals (N/16 columns of M/16
//            fractals), rows inside.
// Numerics: products in float (exact for half/bfloat16_t), summed in k order in float; int8_t in int32_t.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "ascendc.h"
#include "elem.h"
#include "sk_twin_cube_types.h"
#include "sk_twin_quant_hooks.h"
#include "sk_twin_bias_hooks.h"
#include "fixquant.h"

namespace sk_twin {
namespace {

constexpr uint64_t kFractal = 512;

std::string Dt(uint32_t dtype) { return DtypeName(dtype); }

void CheckMem(const SkTwinLocalRef& t, std::initializer_list<uint32_t> allowed, const char* positions,
              const std::string& call, const char* role) {
  const uint32_t mem = LocalMemOf(t);
  for (uint32_t m : allowed) {
    if (m == mem) return;
  }
  FailRule(call,
           std::string(role) + " is " + (mem == kMemCount ? "a tensor never allocated" : "in " + std::string(MemName(mem))),
           std::string(role) + " in " + positions);
}

void CheckAlign(const SkTwinLocalRef& t, uint32_t align, const std::string& call, const char* role) {
  if (t.addr % align != 0) {
    FailRule(call,
             std::string(role) + " starts at " + MemName(LocalMemOf(t)) + " address " + Num(t.addr) +
                 ", not a multiple of " + Num(align),
             std::string(role) + " aligned to " + Num(align) + " bytes");
  }
}

void CheckRange(uint64_t v, uint64_t lo, uint64_t hi, const char* name, const std::string& call) {
  if (v < lo || v > hi) FailRule(call, std::string(name) + " is " + Num(v), std::string(name) + " in [" + Num(lo) + ", " + Num(hi) + "]");
}

uint8_t* Gm(const SkTwinGlobalRef& g, uint64_t begin, uint64_t end, const std::string& call) {
  if (g.base == nullptr) FailRule(call, "the GlobalTensor has no memory", "call SetGlobalBuffer(ptr, size) first");
  const uint64_t b = g.offset_bytes + begin;
  if (g.size_bytes != 0 && g.offset_bytes + end > g.size_bytes) sk_twin_global_oob(&g, b, end - begin, call.c_str());
  return g.base + b;
}

uint32_t C0(uint32_t dtype) { return 32 / DtypeSize(dtype); }

}  // namespace
}  // namespace sk_twin

namespace sk_twin {

namespace {
// M1 of a QUANT_PRE word: bits 31..13 read as a float (the low 13 mantissa bits dropped).
float WordScale(uint64_t word) {
  const uint32_t bits = static_cast<uint32_t>(word) & 0xFFFFE000u;
  float s;
  std::memcpy(&s, &bits, 4);
  return s;
}
bool IsB8(uint32_t dt) { return dt == SK_TWIN_DT_I8 || dt == SK_TWIN_DT_U8; }
}  // namespace

bool FixQuantAllowed(uint32_t quant, uint32_t sd, uint32_t dd, bool* per_column) {
  *per_column = quant == VDEQF16 || quant == VREQ8 || quant == VQF322B8_PRE;
  switch (quant) {
    case NoQuant: return dd == sd;
    case F322F16: return sd == SK_TWIN_DT_F32 && dd == SK_TWIN_DT_HALF;
    case F322BF16: return sd == SK_TWIN_DT_F32 && dd == SK_TWIN_DT_BF16;
    case DEQF16: case VDEQF16: return sd == SK_TWIN_DT_I32 && dd == SK_TWIN_DT_HALF;
    case REQ8: case VREQ8: return sd == SK_TWIN_DT_I32 && IsB8(dd);
    case QF322B8_PRE: case VQF322B8_PRE: return sd == SK_TWIN_DT_F32 && IsB8(dd);
    default: return false;
  }
}

const char* FixQuantAllowedText() {
  return "NoQuant with dst of src's type, F322F16 (float -> half), F322BF16 (float -> bfloat16_t), (V)DEQF16 "
         "(int32_t -> half), (V)REQ8 (int32_t -> int8_t/uint8_t), (V)QF322B8_PRE (float -> int8_t/uint8_t); the CPU "
         "twin does not implement the other quantisation modes yet";
}

void FixQuant(uint32_t quant, uint64_t word, uint32_t sd, const uint8_t* x, uint32_t dd, uint8_t* y,
              const std::string& call) {
  if (quant == NoQuant || quant == F322F16 || quant == F322BF16) {
    if (sd == SK_TWIN_DT_I32) StoreI(dd, y, LoadI(sd, x));
    else StoreF(dd, y, LoadF(sd, x));  // float to half/bfloat16_t: nearest even
    return;
  }
  if (word & (uint64_t{1} << 36)) {
    FailRule(call, "a quantisation word sets bit 36 (MCB: shift right by N to int16_t first)",
             "bit 36 clear; the CPU twin does not implement the MCB shift mode yet");
  }
  // The L0C value as float (int32_t rounded to nearest), times M1 in float.
  const float v = (sd == SK_TWIN_DT_I32 ? static_cast<float>(LoadI(sd, x)) : static_cast<float>(LoadF(sd, x))) *
                  WordScale(word);
  if (quant == DEQF16 || quant == VDEQF16) {
    StoreF(dd, y, v);  // to half, nearest even
    return;
  }
  // 8-bit results: clamp to [-256, 255], round to the nearest integer (ties to even), add the 9-bit offset and
  // saturate to int8_t (bit 46 set) or uint8_t.
  double q = std::nearbyint(std::min(255.0, std::max(-256.0, static_cast<double>(v))));
  int64_t off = static_cast<int64_t>((word >> 37) & 0x1FF);
  if (off >= 256) off -= 512;
  const int64_t r = static_cast<int64_t>(q) + off;
  // The byte is int8_t-saturated when bit 46 is set, uint8_t-saturated otherwise, whatever T the kernel names.
  const bool is_signed = (word >> 46) & 1;
  const int64_t sat = is_signed ? std::min<int64_t>(127, std::max<int64_t>(-128, r))
                                : std::min<int64_t>(255, std::max<int64_t>(0, r));
  (void)dd;
  const uint8_t byte = static_cast<uint8_t>(sat & 0xff);
  std::memcpy(y, &byte, 1);
}

// Mmad: C (L0C) = A x B, + C when accumulate, + bias[j] on column j when bias (the bias table) is given.
static void Mmad(const SkTwinLocalRef* c, const SkTwinLocalRef* a, const SkTwinLocalRef* b, const SkTwinLocalRef* bias,
                 uint32_t in_dtype, uint32_t out_dtype, uint32_t m, uint32_t n, uint32_t k, uint32_t accumulate) {
  const std::string call = "Mmad<" + Dt(out_dtype) + ", " + Dt(in_dtype) + ">(MmadParams{m " +
                           Num(m) + ", n " + Num(n) + ", k " + Num(k) + (accumulate ? ", C += A*B" : ", C = A*B") +
                           "})" + (bias ? " with bias" : "");
  CheckMem(*c, {kMemL0c}, "TPosition::CO1 (L0C)", call, "dst");
  CheckMem(*a, {kMemL0a}, "TPosition::A2 (L0A)", call, "fm");
  CheckMem(*b, {kMemL0b}, "TPosition::B2 (L0B)", call, "filter");
  CheckAlign(*c, 1024, call, "dst");
  CheckAlign(*a, 512, call, "fm");
  CheckAlign(*b, 512, call, "filter");
  CheckRange(m, 0, 4095, "m", call);
  CheckRange(n, 0, 4095, "n", call);
  CheckRange(k, 0, 4095, "k", call);
  if (bias) {
    CheckMem(*bias, {kMemBt}, "TPosition::C2 (the bias table; the CPU twin does not implement "
                      "a bias in L0C yet)", call, "bias");
    CheckAlign(*bias, 64, call, "bias");
  }
  if (m == 0 || n == 0 || k == 0) return;
  const uint8_t* pbias = bias ? LocalAccess(*bias, 0, uint64_t{n} * 4, call, "bias") : nullptr;
  const uint64_t e = DtypeSize(in_dtype), c0 = C0(in_dtype);
  const uint64_t m1 = (m + 15) / 16, n1 = (n + 15) / 16, k1 = (k + c0 - 1) / c0;
  const uint8_t* pa = LocalAccess(*a, 0, m1 * k1 * kFractal, call, "fm");
  const uint8_t* pb = LocalAccess(*b, 0, k1 * n1 * kFractal, call, "filter");
  uint8_t* pc = LocalAccess(*c, 0, m1 * n1 * 256 * 4, call, "dst");
  const bool integer = in_dtype == SK_TWIN_DT_I8;
  for (uint64_t i = 0; i < m; ++i) {
    for (uint64_t j = 0; j < n; ++j) {
      uint8_t* out = pc + (((j / 16) * m1 + i / 16) * 256 + (i % 16) * 16 + j % 16) * 4;
      const uint8_t* init = pbias ? pbias + j * 4 : accumulate ? out : nullptr;
      float facc = init ? static_cast<float>(LoadF(out_dtype, init)) : 0.0f;
      int64_t iacc = init ? LoadI(out_dtype, init) : 0;
      for (uint64_t q = 0; q < k; ++q) {
        const uint8_t* x = pa + (((i / 16) * k1 + q / c0) * 16 * c0 + (i % 16) * c0 + q % c0) * e;
        const uint8_t* y = pb + (((q / c0) * n1 + j / 16) * 16 * c0 + (j % 16) * c0 + q % c0) * e;
        if (integer) {
          iacc = static_cast<int32_t>(static_cast<uint32_t>(iacc) +
                                      static_cast<uint32_t>(LoadI(in_dtype, x) * LoadI(in_dtype, y)));
        } else {
          facc += static_cast<float>(static_cast<float>(LoadF(in_dtype, x)) *
                                     static_cast<float>(LoadF(in_dtype, y)));
        }
      }
      if (integer) StoreI(out_dtype, out, iacc);
      else StoreF(out_dtype, out, facc);
    }
  }
}

}  // namespace sk_twin

using sk_twin::FailRule;
using sk_twin::Num;

extern "C" {

void sk_twin_cube_nd2nz(const SkTwinLocalRef* dst, const SkTwinGlobalRef* src, uint32_t dtype, const uint32_t* p) {
  const uint32_t nd_num = p[0], n = p[1], d = p[2], src_nd_stride = p[3], src_d = p[4], c0_stride = p[5],
                 n_stride = p[6], dst_nd_stride = p[7];
  const std::string call = "DataCopy<" + sk_twin::Dt(dtype) + ">(GM->L1, Nd2NzParams{ndNum " + Num(nd_num) +
                           ", nValue " + Num(n) + ", dValue " + Num(d) + ", srcNdMatrixStride " + Num(src_nd_stride) +
                           ", srcDValue " + Num(src_d) + ", dstNzC0Stride " + Num(c0_stride) + ", dstNzNStride " +
                           Num(n_stride) + ", dstNzMatrixStride " + Num(dst_nd_stride) + "})";
  sk_twin::CheckMem(*dst, {sk_twin::kMemL1}, "TPosition::A1/B1 (L1)", call, "dst");
  sk_twin::CheckAlign(*dst, 32, call, "dst");
  sk_twin::CheckRange(nd_num, 0, 4095, "ndNum", call);
  sk_twin::CheckRange(n, 0, 16384, "nValue", call);
  sk_twin::CheckRange(d, 0, 65535, "dValue", call);
  sk_twin::CheckRange(src_nd_stride, 0, 65535, "srcNdMatrixStride", call);
  sk_twin::CheckRange(src_d, 1, 65535, "srcDValue", call);
  sk_twin::CheckRange(c0_stride, 1, 16384, "dstNzC0Stride", call);
  sk_twin::CheckRange(n_stride, 1, 16384, "dstNzNStride", call);
  sk_twin::CheckRange(dst_nd_stride, 0, 16384, "dstNzMatrixStride", call);
  if (nd_num == 0 || n == 0 || d == 0) return;  // a NOP, as documented
  const uint64_t e = sk_twin::DtypeSize(dtype), c0 = sk_twin::C0(dtype);
  const uint64_t blocks = (d + c0 - 1) / c0;
  // The furthest byte written: the last row of the last column block of the last matrix, 32 bytes.
  const uint64_t dst_end = (uint64_t{nd_num} - 1) * dst_nd_stride * e + (blocks - 1) * c0_stride * 32 +
                           (uint64_t{n} - 1) * n_stride * 32 + 32;
  uint8_t* l1 = sk_twin::LocalAccess(*dst, 0, dst_end, call, "dst");
  const uint64_t src_end = ((uint64_t{nd_num} - 1) * src_nd_stride + (uint64_t{n} - 1) * src_d + d) * e;
  const uint8_t* gm = sk_twin::Gm(*src, 0, src_end, call);
  for (uint64_t i = 0; i < nd_num; ++i) {
    for (uint64_t r = 0; r < n; ++r) {
      const uint8_t* row = gm + (i * src_nd_stride + r * src_d) * e;
      for (uint64_t j = 0; j < blocks; ++j) {
        uint8_t* out = l1 + i * dst_nd_stride * e + j * c0_stride * 32 + r * n_stride * 32;
        const uint64_t have = d - j * c0 < c0 ? d - j * c0 : c0;
        std::memcpy(out, row + j * c0 * e, have * e);
        std::memset(out + have * e, 0, (c0 - have) * e);  // d not a multiple of C0: zeros up to 32 bytes
      }
    }
  }
}

void sk_twin_cube_load2d(const SkTwinLocalRef* dst, const SkTwinLocalRef* src, uint32_t dtype, const uint32_t* p) {
  const uint32_t start = p[0], repeat = p[1], src_stride = p[2], dst_gap = p[3], transpose = p[4];
  const std::string call = "LoadData<" + sk_twin::Dt(dtype) + ">(L1->L0, LoadData2DParams{startIndex " + Num(start) +
                           ", repeatTimes " + Num(repeat) + ", srcStride " + Num(src_stride) + ", dstGap " +
                           Num(dst_gap) + ", ifTranspose " + Num(transpose) + "})";
  sk_twin::CheckMem(*dst, {sk_twin::kMemL0a, sk_twin::kMemL0b}, "TPosition::A2 (L0A) or B2 (L0B)", call, "dst");
  sk_twin::CheckMem(*src, {sk_twin::kMemL1}, "TPosition::A1/B1 (L1)", call, "src");
  sk_twin::CheckAlign(*dst, 512, call, "dst");
  sk_twin::CheckAlign(*src, 32, call, "src");
  sk_twin::CheckRange(repeat, 0, 255, "repeatTimes", call);
  if (transpose && sk_twin::DtypeSize(dtype) != 2) {
    FailRule(call, "ifTranspose with " + sk_twin::Dt(dtype), "ifTranspose only with 16-bit types (half, bfloat16_t)");
  }
  if (repeat == 0) return;
  const uint64_t last_src = (uint64_t{start} + (uint64_t{repeat} - 1) * src_stride + 1) * sk_twin::kFractal;
  const uint64_t last_dst = ((uint64_t{repeat} - 1) * (1 + uint64_t{dst_gap}) + 1) * sk_twin::kFractal;
  const uint8_t* in = sk_twin::LocalAccess(*src, 0, last_src, call, "src");
  uint8_t* out = sk_twin::LocalAccess(*dst, 0, last_dst, call, "dst");
  for (uint64_t r = 0; r < repeat; ++r) {
    const uint8_t* f = in + (start + r * src_stride) * sk_twin::kFractal;
    uint8_t* g = out + r * (1 + uint64_t{dst_gap}) * sk_twin::kFractal;
    if (!transpose) {
      std::memmove(g, f, sk_twin::kFractal);
      continue;
    }
    uint8_t tmp[sk_twin::kFractal];  // a 16 x 16 fractal of 16-bit elements, transposed
    for (int i = 0; i < 16; ++i) {
      for (int j = 0; j < 16; ++j) std::memcpy(tmp + (j * 16 + i) * 2, f + (i * 16 + j) * 2, 2);
    }
    std::memcpy(g, tmp, sk_twin::kFractal);
  }
}

void sk_twin_cube_fill(const SkTwinLocalRef* dst, uint32_t elem, uint64_t bits, uint32_t repeat, uint32_t blocks,
                       uint32_t gap) {
  const std::string call = "Fill(InitConstValueParams{repeatTimes " + Num(repeat) + ", blockNum " + Num(blocks) +
                           ", dstGap " + Num(gap) + "})";
  sk_twin::CheckMem(*dst, {sk_twin::kMemL1, sk_twin::kMemL0a, sk_twin::kMemL0b},
                    "TPosition::A1/B1 (L1), A2 (L0A) or B2 (L0B)", call, "dst");
  const uint64_t blk = sk_twin::LocalMemOf(*dst) == sk_twin::kMemL1 ? 32 : sk_twin::kFractal;
  sk_twin::CheckAlign(*dst, static_cast<uint32_t>(blk), call, "dst");
  sk_twin::CheckRange(repeat, 0, 32767, "repeatTimes", call);
  sk_twin::CheckRange(blocks, 0, 32767, "blockNum", call);
  sk_twin::CheckRange(gap, 0, 32767, "dstGap", call);
  if (repeat == 0 || blocks == 0) return;  // a NOP, as documented
  const uint64_t run = uint64_t{blocks} * blk, step = (uint64_t{blocks} + gap) * blk;
  uint8_t* out = sk_twin::LocalAccess(*dst, 0, (uint64_t{repeat} - 1) * step + run, call, "dst");
  for (uint64_t r = 0; r < repeat; ++r) {
    for (uint64_t off = 0; off < run; off += elem) std::memcpy(out + r * step + off, &bits, elem);  // little-endian
  }
}

void sk_twin_cube_mmad(const SkTwinLocalRef* c, const SkTwinLocalRef* a, const SkTwinLocalRef* b, uint32_t in_dtype,
                       uint32_t out_dtype, uint32_t m, uint32_t n, uint32_t k, uint32_t accumulate) {
  sk_twin::Mmad(c, a, b, nullptr, in_dtype, out_dtype, m, n, k, accumulate);
}

void sk_twin_cube_mmad_bias(const SkTwinLocalRef* c, const SkTwinLocalRef* a, const SkTwinLocalRef* b,
                            const SkTwinLocalRef* bias, uint32_t in_dtype, uint32_t out_dtype, uint32_t m, uint32_t n,
                            uint32_t k) {
  sk_twin::Mmad(c, a, b, bias, in_dtype, out_dtype, m, n, k, 0);
}

void sk_twin_cube_copy_bt(const SkTwinLocalRef* dst, uint32_t dst_dtype, const SkTwinLocalRef* src,
                          uint32_t src_dtype, uint32_t kind, uint64_t count, uint32_t block_count,
                          uint32_t block_len, uint32_t src_gap, uint32_t dst_gap) {
  const std::string call =
      "DataCopy<" + sk_twin::Dt(dst_dtype) + ", " + sk_twin::Dt(src_dtype) + ">(C2 <- C1, " +
      (kind == 0 ? "count " + Num(count)
                 : "DataCopyParams{blockCount " + Num(block_count) + ", blockLen " + Num(block_len) + ", srcGap " +
                       Num(src_gap) + ", dstGap " + Num(dst_gap) + "}") +
      ")";
  sk_twin::CheckMem(*dst, {sk_twin::kMemBt}, "TPosition::C2 (the bias table)", call, "dst");
  sk_twin::CheckMem(*src, {sk_twin::kMemL1}, "TPosition::C1 (L1)", call, "src");
  sk_twin::CheckAlign(*dst, 64, call, "dst");
  sk_twin::CheckAlign(*src, 32, call, "src");
  const bool same = dst_dtype == src_dtype;
  const bool known = (same && (dst_dtype == SK_TWIN_DT_F32 || dst_dtype == SK_TWIN_DT_I32)) ||
                     (dst_dtype == SK_TWIN_DT_F32 && src_dtype == SK_TWIN_DT_HALF);
  if (!known) {
    FailRule(call, "dst " + sk_twin::Dt(dst_dtype) + " from src " + sk_twin::Dt(src_dtype),
             "float from float or half, int32_t from int32_t (Atlas A2/A3)");
  }
  const uint64_t es = sk_twin::DtypeSize(src_dtype), ed = sk_twin::DtypeSize(dst_dtype);
  // (source offset, destination offset, source bytes) of each burst. The count form moves count elements rounded
  // down to whole 32-byte blocks (as documented); blockLen counts 64-byte units of the source, srcGap 32-byte
  // blocks of L1 and dstGap 64-byte units of the table.
  struct Burst { uint64_t src, dst, len; };
  std::vector<Burst> bursts;
  if (kind == 0) {
    const uint64_t bytes = count * es / 32 * 32;
    if (bytes != 0) bursts.push_back({0, 0, bytes});
  } else {
    sk_twin::CheckRange(block_count, 0, 4095, "blockCount", call);
    const uint64_t len = uint64_t{block_len} * 64;
    for (uint64_t i = 0; len != 0 && i < block_count; ++i) {
      bursts.push_back({i * (len + uint64_t{src_gap} * 32), i * (len / es * ed + uint64_t{dst_gap} * 64), len});
    }
  }
  if (bursts.empty()) return;  // blockCount, blockLen or count 0: a NOP
  const Burst& last = bursts.back();
  const uint8_t* in = sk_twin::LocalAccess(*src, 0, last.src + last.len, call, "src");
  uint8_t* out = sk_twin::LocalAccess(*dst, 0, last.dst + last.len / es * ed, call, "dst");
  for (const Burst& b : bursts) {
    if (same) {
      std::memmove(out + b.dst, in + b.src, b.len);
      continue;
    }
    for (uint64_t e = 0; e < b.len / es; ++e) {  // half -> float: exact
      sk_twin::StoreF(dst_dtype, out + b.dst + e * ed, sk_twin::LoadF(src_dtype, in + b.src + e * es));
    }
  }
}

void sk_twin_cube_fixpipe(const SkTwinGlobalRef* dst, const SkTwinLocalRef* src, uint32_t src_dtype,
                          uint32_t dst_dtype, const uint32_t* p) {
  SkTwinFixpipe f{};
  f.api = "Fixpipe";
  f.gm = dst;
  f.src = src;
  f.src_dtype = src_dtype;
  f.dst_dtype = dst_dtype;
  f.n = p[0];
  f.m = p[1];
  f.src_stride = p[2];
  f.dst_stride = p[3];
  f.quant = p[4];
  f.nd_num = p[5];
  f.src_nd_stride = p[6];
  f.dst_nd_stride = p[7];
  f.nz2nd = 1;
  sk_twin_cube_fixpipe_move(&f);
}

void sk_twin_cube_set_nz2nd(uint32_t nd_num, uint32_t src_nd_stride, uint32_t dst_nd_stride) {
  const std::string call = "SetFixpipeNz2ndFlag(ndNum " + Num(nd_num) + ", srcNdStride " + Num(src_nd_stride) +
                           ", dstNdStride " + Num(dst_nd_stride) + ")";
  sk_twin::CheckRange(nd_num, 1, 65535, "ndNum", call);
  sk_twin::CheckRange(src_nd_stride, nd_num > 1 ? 1 : 0, 512, "srcNdStride", call);
  sk_twin::CheckRange(dst_nd_stride, 1, 65535, "dstNdStride", call);
  uint32_t* r = sk_twin::CurrentWorker("SetFixpipeNz2ndFlag").ascendc.fix_nd;
  r[0] = nd_num;
  r[1] = src_nd_stride;
  r[2] = dst_nd_stride;
}

void sk_twin_cube_set_pre_quant(uint64_t scalar) {
  sk_twin::CurrentWorker("SetFixpipePreQuantFlag").ascendc.fix_pre_quant = scalar;
}

void sk_twin_cube_fixpipe_regs(uint32_t* nd, uint64_t* scalar) {
  const sk_twin::AscendState& st = sk_twin::CurrentWorker("DataCopy(L0C)").ascendc;
  for (int i = 0; i < 3; ++i) nd[i] = st.fix_nd[i];
  *scalar = st.fix_pre_quant;
}

void sk_twin_cube_fixpipe_move(const SkTwinFixpipe* fp) {
  const SkTwinFixpipe& f = *fp;
  const uint32_t n = f.n, m = f.m, src_stride = f.src_stride, dst_stride = f.dst_stride, quant = f.quant;
  const uint32_t nd_num = f.nz2nd ? f.nd_num : 1, src_nd_stride = f.src_nd_stride, dst_nd_stride = f.dst_nd_stride;
  const uint32_t sd = f.src_dtype, dd = f.dst_dtype;
  const std::string call = std::string(f.api) + "<" + sk_twin::Dt(dd) + ", " + sk_twin::Dt(sd) +
                           (std::string(f.api) == "Fixpipe" ? (f.nz2nd ? ", CFG_ROW_MAJOR" : ", CFG_NZ")
                                                             : (f.nz2nd ? ", nz2ndEn" : ", NZ out")) +
                           ">(L0C->" + (f.gm ? "GM" : "L1") + ", nSize " +
                           Num(n) + ", mSize " + Num(m) + ", srcStride " + Num(src_stride) + ", dstStride " +
                           Num(dst_stride) + ", quantPre " + Num(quant) +
                           (f.nz2nd ? ", ndNum " + Num(nd_num) + ", srcNdStride " + Num(src_nd_stride) +
                                          ", dstNdStride " + Num(dst_nd_stride)
                                    : std::string()) +
                           ")";
  sk_twin::CheckMem(*f.src, {sk_twin::kMemL0c}, "TPosition::CO1 (L0C)", call, "src");
  sk_twin::CheckAlign(*f.src, 64, call, "src");
  if (f.l1 != nullptr) {
    sk_twin::CheckMem(*f.l1, {sk_twin::kMemL1}, "TPosition::A1/B1/C1 (L1)", call, "dst");
    sk_twin::CheckAlign(*f.l1, 32, call, "dst");
  }
  sk_twin::CheckRange(n, 0, 4095, "nSize", call);
  sk_twin::CheckRange(m, 0, f.nz2nd ? 8192 : 65535, "mSize", call);
  sk_twin::CheckRange(nd_num, 0, 65535, "ndNum", call);
  sk_twin::CheckRange(src_nd_stride, 0, 512, "srcNdStride", call);
  if (f.relu || f.channel_split) {
    FailRule(call, f.relu ? "ReLU on the way out is on" : "channel split is on",
             "the CPU twin does not implement ReLU or channel split in Fixpipe/DataCopy from L0C yet (allowed: off)");
  }
  bool per_column = false;
  if (!sk_twin::FixQuantAllowed(quant, sd, dd, &per_column)) {
    FailRule(call, "quantPre " + Num(quant) + " from " + sk_twin::Dt(sd) + " to " + sk_twin::Dt(dd),
             sk_twin::FixQuantAllowedText());
  }
  if (per_column && f.quant_tensor == nullptr) {
    FailRule(call, "quantPre " + Num(quant) + " (a vector mode) without a quantisation tensor",
             "pass the uint64_t scale tensor in L1 (C1)");
  }
  if (n == 0 || m == 0 || nd_num == 0) return;
  if (src_stride < (m + 15) / 16 * 16) {
    FailRule(call, "srcStride " + Num(src_stride) + " is less than mSize rounded up to 16",
             "srcStride >= " + Num((m + 15) / 16 * 16) + " (the Z columns of the NZ source must not overlap)");
  }
  const uint64_t se = 4, de = sk_twin::DtypeSize(dd), n1 = (n + 15) / 16;
  if (!f.nz2nd) {
    if (n % 16 != 0) FailRule(call, "nSize " + Num(n) + " with an NZ destination", "nSize a multiple of 16");
    if (de == 1) FailRule(call, "an 8-bit NZ destination", "the CPU twin does not implement channel merge yet");
    if (uint64_t{dst_stride} * 32 < uint64_t{m} * 16 * de) {
      FailRule(call, "dstStride " + Num(dst_stride) + " blocks is less than mSize rows of a Z column",
               "dstStride >= " + Num((uint64_t{m} * 16 * de + 31) / 32) + " (32-byte blocks)");
    }
  } else if (dst_stride < n) {
    FailRule(call, "dstStride " + Num(dst_stride) + " is less than nSize", "dstStride >= nSize");
  }
  const uint64_t src_end = ((uint64_t{nd_num} - 1) * src_nd_stride * 256 + (n1 - 1) * src_stride * 16 + m * 16) * se;
  const uint8_t* l0c = sk_twin::LocalAccess(*f.src, 0, src_end, call, "src");
  // Byte offset of element (i, r, c) in the destination.
  auto dst_off = [&](uint64_t i, uint64_t r, uint64_t c) -> uint64_t {
    if (f.nz2nd) return (i * dst_nd_stride + r * dst_stride + c) * de;
    return (c / 16) * dst_stride * 32 + (r * 16 + c % 16) * de;
  };
  const uint64_t dst_end = dst_off(nd_num - 1, m - 1, n - 1) + de;
  uint8_t* out = f.gm ? sk_twin::Gm(*f.gm, 0, dst_end, call)
                      : sk_twin::LocalAccess(*f.l1, 0, dst_end, call, "dst");
  const uint8_t* qt = nullptr;
  if (per_column) {
    sk_twin::CheckMem(*f.quant_tensor, {sk_twin::kMemL1}, "TPosition::C1 (L1)", call, "the quantisation tensor");
    sk_twin::CheckAlign(*f.quant_tensor, 32, call, "the quantisation tensor");
    qt = sk_twin::LocalAccess(*f.quant_tensor, 0, uint64_t{n} * 8, call, "the quantisation tensor");
  }
  std::vector<uint8_t> row(uint64_t{n} * de);
  for (uint64_t i = 0; i < nd_num; ++i) {
    for (uint64_t r = 0; r < m; ++r) {
      for (uint64_t c = 0; c < n; ++c) {
        const uint8_t* x = l0c + (i * src_nd_stride * 256 + (c / 16) * src_stride * 16 + r * 16 + c % 16) * se;
        uint8_t* y = f.nz2nd ? row.data() + c * de : out + dst_off(i, r, c);
        uint64_t word = f.deq_scalar;
        if (qt != nullptr) std::memcpy(&word, qt + c * 8, 8);
        sk_twin::FixQuant(quant, word, sd, x, dd, y, call);
      }
      if (!f.nz2nd) continue;
      if (f.gm) sk_twin::StoreToGm(out + dst_off(i, r, 0), row.data(), row.size(), dd, call);
      else std::memcpy(out + dst_off(i, r, 0), row.data(), row.size());
    }
  }
}

}  // extern "C"
