// The cube Matmul high-level API's computation (sk_twin_matmul.h): one
// block of C from A and B in GM, on the calling worker, with every operand
// checked against its GlobalTensor's size before it is read or written.
#include <cstring>
#include <string>
#include <vector>

#include "ascendc.h"
#include "elem.h"
#include "fixquant.h"
#include "sk_twin_cube_types.h"
#include "sk_twin_ext.h"

namespace sk_twin {
namespace {

const char* MmName(uint32_t dt) { return dt == SK_TWIN_MM_DT_INT4 ? "int4b_t" : DtypeName(dt); }
bool IsInt(uint32_t dt) { return dt == SK_TWIN_DT_I8 || dt == SK_TWIN_MM_DT_INT4; }

// Element idx of an A/B operand: int4b_t two a byte (element 2k in the low nibble, two's complement).
int64_t LoadElem(uint32_t dt, const uint8_t* base, int64_t idx) {
  if (dt != SK_TWIN_MM_DT_INT4) return LoadI(dt, base + idx * DtypeSize(dt));
  const int v = (idx % 2 ? base[idx / 2] >> 4 : base[idx / 2]) & 0xf;
  return v >= 8 ? v - 16 : v;
}

std::string MatmulCall(const SkTwinMatmul& m) {
  return std::string("Matmul<") + MmName(m.a_dtype) + ", " + MmName(m.b_dtype) + ", " + DtypeName(m.c_dtype) +
         ">::" + m.call + "(m " + std::to_string(m.m) + ", n " + std::to_string(m.n) + ", k " + std::to_string(m.k) +
         (m.trans_a ? ", A transposed" : "") + (m.trans_b ? ", B transposed" : "") + ")";
}

// Checks that elements [first, last] of a GM operand lie in its view; its base.
const uint8_t* GmOperand(const SkTwinGlobalRef& g, uint64_t last_elem, uint32_t e, const std::string& call,
                    const char* role) {
  if (g.base == nullptr) FailRule(call, std::string(role) + " has no memory", "SetGlobalBuffer before SetTensor*");
  const uint64_t end = g.offset_bytes + (last_elem + 1) * e;
  if (g.size_bytes != 0 && end > g.size_bytes) {
    FailRule(call,
             std::string(role) + " needs GM elements up to " + Num(last_elem) + " of the view, bytes up to " + Num(end) +
                 ", but its SetGlobalBuffer size is " + Num(g.size_bytes) + " bytes",
             "the org shapes (SetOrgShape / TCubeTiling M, N, Ka, Kb) and single shapes must fit the tensors");
  }
  return g.base + g.offset_bytes;
}

// An operand in L1 (TSCM/A1/B1): checks its memory and that elements [0, last] lie in its buffer; its base.
const uint8_t* L1Operand(const SkTwinLocalRef& t, uint64_t last_elem, uint32_t e, const std::string& call,
                         const char* role) {
  if (LocalMemOf(t) != kMemL1) {
    FailRule(call, std::string(role) + " is a LocalTensor outside L1", std::string(role) +
             " in TPosition::TSCM/A1/B1 (the L1 Buffer) when its MatmulType names that position");
  }
  return LocalAccess(t, 0, (last_elem + 1) * e, call, role);
}

// Element (r, c) of an operand stored as rows x cols: row-major with `ld` elements a row (ND), or in column blocks
// of c0 columns, each `height` rows of c0 elements (NZ).
int64_t Stored(bool nz, int64_t r, int64_t c, int64_t ld, int64_t height, int64_t c0) {
  return nz ? ((c / c0) * height + r) * c0 + c % c0 : r * ld + c;
}

// The images the copy callbacks' tiles are gathered into, per worker and operand.
struct Image {
  std::vector<uint8_t> bytes;
  uint32_t dtype = 0;
  int64_t rows = 0, cols = 0;
};
thread_local Image g_images[2];

}  // namespace
}  // namespace sk_twin

using sk_twin::FailRule;
using sk_twin::Num;

extern "C" {

int32_t sk_twin_matmul_is_server(void) {
  sk_twin::Worker& w = sk_twin::CurrentWorker("REGIST_MATMUL_OBJ");
  if (w.type != sk_twin::CoreType::kAic) return 0;
  sk_twin::LaunchContext& ctx = sk_twin::CurrentLaunch();
  return w.block < ctx.aivs_of_block.size() && !ctx.aivs_of_block[w.block].empty() ? 1 : 0;
}

void sk_twin_matmul_fail(const char* call, const char* problem, const char* allowed) {
  FailRule(std::string("Matmul::") + call, problem, allowed);
}

void sk_twin_matmul(const SkTwinMatmul* mm) {
  const SkTwinMatmul& m = *mm;
  const std::string call = sk_twin::MatmulCall(m);
  constexpr uint32_t kNd = 0, kNz = 1;  // AscendC::CubeFormat
  if ((m.a_format != kNd && m.a_format != kNz) || (m.b_format != kNd && m.b_format != kNz) || m.c_format != kNd) {
    FailRule(call, "a CubeFormat the twin does not implement here (A " + Num(m.a_format) + ", B " + Num(m.b_format) +
                       ", C " + Num(m.c_format) + ")",
             "A and B in CubeFormat::ND or NZ, C in CubeFormat::ND");
  }
  if ((m.a_local != nullptr && m.a_format != kNz) || (m.b_local != nullptr && m.b_format != kNz)) {
    FailRule(call, "an operand in L1 that is not in CubeFormat::NZ", "A and B in L1 in the NZ format");
  }
  if (m.m < 0 || m.n < 0 || m.k <= 0 || m.lda <= 0 || m.ldb <= 0 || m.ldc <= 0) {
    FailRule(call, "shape m " + std::to_string(m.m) + ", n " + std::to_string(m.n) + ", k " + std::to_string(m.k) +
                       ", row strides A " + std::to_string(m.lda) + ", B " + std::to_string(m.ldb) + ", C " +
                       std::to_string(m.ldc),
             "Init with a TCubeTiling (or SetOrgShape/SetSingleShape) giving positive shapes");
  }
  if (m.m == 0 || m.n == 0) return;
  const bool ints = sk_twin::IsInt(m.a_dtype);
  if ((ints || sk_twin::IsInt(m.b_dtype)) && m.a_dtype != m.b_dtype) {
    FailRule(call, std::string("A of ") + sk_twin::MmName(m.a_dtype) + " with B of " + sk_twin::MmName(m.b_dtype),
             "integer A and B of the same type (int8_t or int4b_t)");
  }
  // SetQuantScalar/SetQuantVector: int8_t/int4b_t A/B to half C (DEQF16/VDEQF16) or to int8_t C (REQ8/VREQ8);
  // half/bfloat16_t A/B to int8_t C (QF322B8_PRE/VQF322B8_PRE). The fixpipe does the conversion (fixquant.h).
  const bool c8 = m.c_dtype == SK_TWIN_DT_I8;
  const bool deq = (ints && (m.c_dtype == SK_TWIN_DT_HALF || c8)) ||
                   (!ints && c8 && (m.a_dtype == SK_TWIN_DT_HALF || m.a_dtype == SK_TWIN_DT_BF16));
  const QuantMode_t mode = !deq ? NoQuant
                           : ints ? (c8 ? (m.quant == 2 ? VREQ8 : REQ8) : (m.quant == 2 ? VDEQF16 : DEQF16))
                                  : (m.quant == 2 ? VQF322B8_PRE : QF322B8_PRE);
  if (deq && m.quant == 0) {
    FailRule(call, std::string("A/B of ") + sk_twin::MmName(m.a_dtype) + " with C of " +
                       sk_twin::DtypeName(m.c_dtype) + " and no quantisation scale",
             "call SetQuantScalar or SetQuantVector before Iterate/IterateAll");
  }
  if (m.quant != 0 && !deq) {
    FailRule(call, std::string(m.quant == 1 ? "SetQuantScalar" : "SetQuantVector") + " with A/B/C of " +
                       sk_twin::MmName(m.a_dtype) + "/" + sk_twin::MmName(m.b_dtype) + "/" +
                       sk_twin::DtypeName(m.c_dtype),
             "quantisation for int8_t/int4b_t A/B to half or int8_t C, or half/bfloat16_t A/B to int8_t C");
  }
  if (!deq && ints != (m.c_dtype == SK_TWIN_DT_I32)) {
    FailRule(call, "integer and floating operands are mixed", "int8_t/int4b_t A and B give int32_t C (or half C with "
                                                              "SetQuantScalar/SetQuantVector); floating A/B give half, "
                                                              "bfloat16_t or float C");
  }
  const uint8_t* qv = m.quant == 2 ? sk_twin::GmOperand(*m.quant_vector, static_cast<uint64_t>(m.col0 + m.n - 1), 8,
                                                         call, "the SetQuantVector tensor")
                                   : nullptr;
  const uint32_t ea = sk_twin::DtypeSize(m.a_dtype), eb = sk_twin::DtypeSize(m.b_dtype);
  const uint32_t ec = sk_twin::DtypeSize(m.c_dtype);
  const int64_t r_last = m.row0 + m.m - 1, c_last = m.col0 + m.n - 1, k_last = m.k - 1;
  const bool a_nz = m.a_format == kNz, b_nz = m.b_format == kNz;
  // C0: 32 bytes of a fractal row (int4b_t: 64 elements, two a byte).
  const int64_t a_c0 = m.a_dtype == SK_TWIN_MM_DT_INT4 ? 64 : 32 / ea;
  const int64_t b_c0 = m.b_dtype == SK_TWIN_MM_DT_INT4 ? 64 : 32 / eb;
  // A is stored M x K (K x M transposed), B K x N (N x K transposed); an NZ column block must hold every stored row.
  const int64_t a_rows = m.trans_a ? m.k : r_last + 1, b_rows = m.trans_b ? c_last + 1 : m.k;
  if ((a_nz && m.a_height < a_rows) || (b_nz && m.b_height < b_rows)) {
    FailRule(call, std::string(a_nz && m.a_height < a_rows ? "A" : "B") + " in NZ has column blocks of " +
                       Num(a_nz && m.a_height < a_rows ? m.a_height : m.b_height) + " rows but " +
                       Num(a_nz && m.a_height < a_rows ? a_rows : b_rows) + " rows are read",
             "NZ column blocks as high as the stored matrix (its rows aligned to 16)");
  }
  auto a_index = [&](int64_t i, int64_t k) {
    return m.trans_a ? sk_twin::Stored(a_nz, k, i, m.lda, m.a_height, a_c0)
                     : sk_twin::Stored(a_nz, i, k, m.lda, m.a_height, a_c0);
  };
  auto b_index = [&](int64_t k, int64_t j) {
    return m.trans_b ? sk_twin::Stored(b_nz, j, k, m.ldb, m.b_height, b_c0)
                     : sk_twin::Stored(b_nz, k, j, m.ldb, m.b_height, b_c0);
  };
  const uint64_t a_last = static_cast<uint64_t>(a_index(r_last, k_last));
  const uint64_t b_last = static_cast<uint64_t>(b_index(k_last, c_last));
  // int4b_t operands (GM or L1, ND or NZ) are checked by the byte that holds their last element.
  auto operand = [&](const SkTwinGlobalRef* g, const SkTwinLocalRef* l, uint64_t last, uint32_t dt, uint32_t e,
                     const char* role) {
    if (l != nullptr) {
      return dt == SK_TWIN_MM_DT_INT4 ? sk_twin::L1Operand(*l, last / 2, 1, call, role)
                                      : sk_twin::L1Operand(*l, last, e, call, role);
    }
    return dt == SK_TWIN_MM_DT_INT4 ? sk_twin::GmOperand(*g, last / 2, 1, call, role)
                                    : sk_twin::GmOperand(*g, last, e, call, role);
  };
  const uint8_t* a = operand(m.a, m.a_local, a_last, m.a_dtype, ea, "A");
  const uint8_t* b = operand(m.b, m.b_local, b_last, m.b_dtype, eb, "B");
  const uint8_t* bias = m.bias != nullptr
                            ? sk_twin::GmOperand(*m.bias, static_cast<uint64_t>(c_last), sk_twin::DtypeSize(m.bias_dtype),
                                            call, "bias")
                            : nullptr;
  // The block, in float (or int32) with the hardware's accumulation.
  std::vector<uint8_t> out(static_cast<size_t>(m.m * m.n) * ec);
  for (int64_t i = 0; i < m.m; ++i) {
    for (int64_t j = 0; j < m.n; ++j) {
      uint8_t* o = out.data() + (i * m.n + j) * ec;
      if (ints) {
        int64_t acc = 0;
        for (int64_t k = 0; k < m.k; ++k) {
          acc += sk_twin::LoadElem(m.a_dtype, a, a_index(m.row0 + i, k)) *
                 sk_twin::LoadElem(m.b_dtype, b, b_index(k, m.col0 + j));
          acc = static_cast<int32_t>(static_cast<uint32_t>(acc));
        }
        if (bias != nullptr) acc += sk_twin::LoadI(m.bias_dtype, bias + (m.col0 + j) * sk_twin::DtypeSize(m.bias_dtype));
        acc = static_cast<int32_t>(static_cast<uint32_t>(acc));
        if (deq) {
          uint64_t word = m.quant_scalar;
          if (qv != nullptr) std::memcpy(&word, qv + (m.col0 + j) * 8, 8);
          uint8_t l0c[4];
          sk_twin::StoreI(SK_TWIN_DT_I32, l0c, acc);
          sk_twin::FixQuant(mode, word, SK_TWIN_DT_I32, l0c, m.c_dtype, o, call);
        } else {
          sk_twin::StoreI(SK_TWIN_DT_I32, o, acc);
        }
        continue;
      }
      float acc = 0.0f;
      for (int64_t k = 0; k < m.k; ++k) {
        const double p = sk_twin::LoadF(m.a_dtype, a + a_index(m.row0 + i, k) * ea) *
                         sk_twin::LoadF(m.b_dtype, b + b_index(k, m.col0 + j) * eb);
        acc = static_cast<float>(static_cast<double>(acc) + static_cast<double>(static_cast<float>(p)));
      }
      if (bias != nullptr) {
        acc = static_cast<float>(static_cast<double>(acc) +
                                 sk_twin::LoadF(m.bias_dtype, bias + (m.col0 + j) * sk_twin::DtypeSize(m.bias_dtype)));
      }
      if (deq) {
        uint64_t word = m.quant_scalar;
        if (qv != nullptr) std::memcpy(&word, qv + (m.col0 + j) * 8, 8);
        uint8_t l0c[4];
        std::memcpy(l0c, &acc, 4);
        sk_twin::FixQuant(mode, word, SK_TWIN_DT_F32, l0c, m.c_dtype, o, call);
      } else {
        sk_twin::StoreF(m.c_dtype, o, acc);
      }
    }
  }
  if (m.c_local != nullptr && m.c_l0c) {
    // L0C: 16 x 16 fractals, column-major over them, the block's rows aligned to 16 in each column block.
    if (sk_twin::LocalMemOf(*m.c_local) != sk_twin::kMemL0c) {
      FailRule(call, "C is a LocalTensor outside L0C", "the C tensor of Iterate(enPartialSum, tensor) in TPosition::CO1");
    }
    const int64_t m16 = (m.m + 15) / 16 * 16, n16 = (m.n + 15) / 16 * 16;
    uint8_t* d = sk_twin::LocalAccess(*m.c_local, 0, static_cast<uint64_t>(m16 * n16) * ec, call, "C (L0C)");
    for (int64_t i = 0; i < m.m; ++i) {
      for (int64_t j = 0; j < m.n; ++j) {
        uint8_t* o = d + (((j / 16) * m16 + i) * 16 + j % 16) * ec;
        const uint8_t* v = out.data() + (i * m.n + j) * ec;
        if (!m.c_accumulate) {
          std::memcpy(o, v, ec);
        } else if (ints) {
          sk_twin::StoreI(SK_TWIN_DT_I32, o, static_cast<int32_t>(static_cast<uint32_t>(
                                                 sk_twin::LoadI(SK_TWIN_DT_I32, o) + sk_twin::LoadI(SK_TWIN_DT_I32, v))));
        } else {
          sk_twin::StoreF(m.c_dtype, o, static_cast<float>(sk_twin::LoadF(m.c_dtype, o) + sk_twin::LoadF(m.c_dtype, v)));
        }
      }
    }
    return;
  }
  if (m.c_local != nullptr) {
    uint8_t* d = sk_twin::LocalAccess(*m.c_local, 0, static_cast<uint64_t>((m.m - 1) * m.n_stride + m.n) * ec, call,
                                      "C (LocalTensor)");
    for (int64_t i = 0; i < m.m; ++i) std::memcpy(d + i * m.n_stride * ec, out.data() + i * m.n * ec, m.n * ec);
    return;
  }
  uint8_t* c = const_cast<uint8_t*>(
      sk_twin::GmOperand(*m.c, static_cast<uint64_t>(m.c_block ? (m.m - 1) * m.n_stride + m.n - 1 : r_last * m.ldc + c_last),
                         ec, call, m.c_block ? "the workspace (SetWorkspace)" : "C"));
  for (int64_t i = 0; i < m.m; ++i) {
    uint8_t* row = c + (m.c_block ? i * m.n_stride : (m.row0 + i) * m.ldc + m.col0) * ec;
    if (m.atomic) {
      sk_twin::AscendState& st = sk_twin::CurrentWorker("Matmul").ascendc;
      const uint32_t saved = st.atomic, saved_dt = st.atomic_dtype;
      st.atomic = 1;
      st.atomic_dtype = m.c_dtype;
      sk_twin::StoreToGm(row, out.data() + i * m.n * ec, m.n * ec, m.c_dtype, call);
      st.atomic = saved;
      st.atomic_dtype = saved_dt;
    } else {
      std::memcpy(row, out.data() + i * m.n * ec, m.n * ec);
    }
  }
}

void sk_twin_matmul_image(uint32_t operand, uint32_t dtype, int64_t rows, int64_t cols, SkTwinGlobalRef* out) {
  sk_twin::Image& img = sk_twin::g_images[operand & 1];
  img.dtype = dtype;
  img.rows = rows;
  img.cols = cols;
  img.bytes.assign(static_cast<size_t>(rows * cols) * sk_twin::DtypeSize(dtype), 0);
  *out = SkTwinGlobalRef{img.bytes.data(), img.bytes.size(), 0};
}

void sk_twin_matmul_tile(const char* call, uint32_t operand, const SkTwinLocalRef* tile, int64_t row0, int64_t col0,
                         int64_t tile_rows, int64_t tile_cols) {
  sk_twin::Image& img = sk_twin::g_images[operand & 1];
  const std::string where = std::string("Matmul::") + call + (operand ? " (CopyB1 tile)" : " (CopyA1 tile)");
  if (tile_rows <= 0 || tile_cols <= 0) return;
  if (img.dtype == SK_TWIN_MM_DT_INT4) {
    FailRule(where, "an int4b_t operand through the copy callbacks",
             "int4b_t A and B in GM or in L1 (the CPU twin does not implement CopyA1/CopyB1 tiles of int4b_t yet)");
  }
  const uint32_t e = sk_twin::DtypeSize(img.dtype);
  const int64_t c0 = 32 / e, height = (tile_rows + 15) / 16 * 16;
  const int64_t last = sk_twin::Stored(true, tile_rows - 1, tile_cols - 1, 0, height, c0);
  const uint8_t* src = sk_twin::L1Operand(*tile, static_cast<uint64_t>(last), e, where, "the tile");
  for (int64_t r = 0; r < tile_rows; ++r) {
    for (int64_t c = 0; c < tile_cols; ++c) {
      std::memcpy(img.bytes.data() + ((row0 + r) * img.cols + col0 + c) * e,
                  src + sk_twin::Stored(true, r, c, 0, height, c0) * e, e);
    }
  }
}

}  // extern "C"
