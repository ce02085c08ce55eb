// The wider vector surface (sk_twin_ext.h): the mask/repeat forms of the
// vector instructions, the logic and shift instructions, Axpy, Cast and Copy
// by repeat, Compare/Select by repeat, Gather, GatherMask, the per-repeat
// reductions, Brcb and the index fills.
//
// A mask/repeat call runs `repeat` iterations of 256 bytes of its widest
// operand (per = 256 / sizeof lanes); lane i of repeat r of an operand with
// element size e, block stride blk and repeat stride rep lies at byte
//   r * rep * 32 + (i / (32 / e)) * blk * 32 + (i % (32 / e)) * e.
// In the normal mask mode the mask picks lanes of each repeat (continuous:
// the first `mask`; bits: mask[0] lanes 0-63, mask[1] lanes 64-127); in the
// counter mode (SetMaskCount) it is the number of elements in all and
// repeatTime is ignored. Lanes the mask leaves out keep their dst value.
// Each repeat reads all its inputs before it writes, as the hardware does.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "ascendc.h"
#include "elem.h"
#include "sk_twin_ext.h"

namespace sk_twin {
namespace {

constexpr int64_t kMaxRepeat = 255;

AscendState& State(const char* hook) { return CurrentWorker(hook).ascendc; }

const char* XName(uint32_t op) {
  switch (op) {
    case SK_TWIN_X_AND: return "And";
    case SK_TWIN_X_OR: return "Or";
    case SK_TWIN_X_NOT: return "Not";
    case SK_TWIN_X_SHIFT_LEFT: return "ShiftLeft";
    case SK_TWIN_X_SHIFT_RIGHT: return "ShiftRight";
    case SK_TWIN_X_AXPY: return "Axpy";
    case SK_TWIN_X_FUSED_MUL_ADD: return "FusedMulAdd";
    case SK_TWIN_X_MUL_ADD_DST: return "MulAddDst";
    case SK_TWIN_X_CAST: return "Cast";
    case SK_TWIN_X_COPY: return "Copy";
    case SK_TWIN_X_COMPARE: return "Compare";
    case SK_TWIN_X_SELECT: return "Select";
    case SK_TWIN_X_COMPARE_REG: return "Compare (into CMPMASK)";
    case SK_TWIN_X_SELECT_REG: return "Select (by CMPMASK)";
    case SK_TWIN_X_FLOOR: return "Floor";
    case SK_TWIN_X_CEIL: return "Ceil";
    case SK_TWIN_X_TRUNC: return "Trunc";
    case SK_TWIN_X_ROUND: return "Round";
    case SK_TWIN_X_SIGN: return "Sign";
    case SK_TWIN_X_SIN: return "Sin";
    case SK_TWIN_X_COS: return "Cos";
    case SK_TWIN_X_TAN: return "Tan";
    case SK_TWIN_X_TANH: return "Tanh";
    case SK_TWIN_X_SINH: return "Sinh";
    case SK_TWIN_X_COSH: return "Cosh";
    case SK_TWIN_X_ATAN: return "Atan";
    case SK_TWIN_X_ERF: return "Erf";
    case SK_TWIN_X_LOG2: return "Log2";
    case SK_TWIN_X_LOG10: return "Log10";
    case SK_TWIN_X_POWER: return "Power";
    case SK_TWIN_X_ASIN: return "Asin";
    case SK_TWIN_X_ACOS: return "Acos";
    case SK_TWIN_X_ERFC: return "Erfc";
    case SK_TWIN_X_SIGMOID: return "Sigmoid";
    case SK_TWIN_X_ASINH: return "Asinh";
    case SK_TWIN_X_ACOSH: return "Acosh";
    case SK_TWIN_X_ATANH: return "Atanh";
    default: return OpName(op);
  }
}

std::string Hex(uint64_t v) {
  static const char* const kDigits = "0123456789abcdef";
  std::string s;
  do {
    s.insert(s.begin(), kDigits[v & 15]);
    v >>= 4;
  } while (v != 0);
  return "0x" + s;
}

std::string MaskText(uint32_t kind, const uint64_t* mask) {
  switch (kind) {
    case SK_TWIN_MASK_COUNT: return "count " + Num(mask[0]);
    case SK_TWIN_MASK_CONT: return "mask " + Num(mask[0]);
    case SK_TWIN_MASK_BITS: return "mask {" + Hex(mask[0]) + ", " + Hex(mask[1]) + "}";
    default: return "mask from SetVectorMask";
  }
}

std::string RepCall(const SkTwinRep& a) {
  std::string t = DtypeName(a.dtype);
  if (a.op == SK_TWIN_X_CAST || a.op == SK_TWIN_X_AXPY || a.op == SK_TWIN_X_MUL_ADD_DST) t += std::string(", ") + DtypeName(a.src_dtype);
  std::string s = std::string(XName(a.op)) + "<" + t + ">(";
  if (a.op == SK_TWIN_X_CAST) s += std::string(RoundName(a.mode)) + ", ";
  if (a.op == SK_TWIN_X_COMPARE || a.op == SK_TWIN_X_COMPARE_REG) s += std::string(CmpName(a.mode)) + ", ";
  s += MaskText(a.mask_kind, a.mask);
  if (a.mask_kind == SK_TWIN_MASK_COUNT) return s + ")";
  s += ", repeatTime " + std::to_string(a.repeat);
  if (a.unary) {
    s += ", {dstBlkStride " + Num(a.dst_blk) + ", srcBlkStride " + Num(a.src0_blk) + ", dstRepStride " +
         Num(a.dst_rep) + ", srcRepStride " + Num(a.src0_rep) + "})";
  } else {
    s += ", {dstBlkStride " + Num(a.dst_blk) + ", src0BlkStride " + Num(a.src0_blk) + ", src1BlkStride " +
         Num(a.src1_blk) + ", dstRepStride " + Num(a.dst_rep) + ", src0RepStride " + Num(a.src0_rep) +
         ", src1RepStride " + Num(a.src1_rep) + "})";
  }
  return s;
}

void CheckRepeat(int64_t repeat, const std::string& call) {
  if (repeat < 0 || repeat > kMaxRepeat) {
    FailRule(call, "repeatTime " + std::to_string(repeat) + " is outside 0..255",
             "repeatTime is a uint8_t on the hardware (at most 255 iterations of 256 bytes); split the work into "
             "calls of at most 255 repeats");
  }
}

// The lanes of one call: per repeat, the active lane numbers (0..per-1).
struct Lanes {
  uint64_t per = 0;
  bool counter = false;   // counter mode or count form: lane k = r * per + i, k < total
  bool contiguous = false;  // count form: operands are packed, strides unused
  uint64_t total = 0;
  int64_t repeats = 0;
  uint64_t bits[2] = {0, 0};  // normal mode: the lanes of every repeat
  bool Active(int64_t r, uint64_t i) const {
    if (counter) return static_cast<uint64_t>(r) * per + i < total;
    return i < 128 ? ((bits[i / 64] >> (i % 64)) & 1) != 0 : false;
  }
};

// Works out the lanes from the mask argument (or register) and checks it.
Lanes MakeLanes(const AscendState& st, uint32_t kind, const uint64_t* mask, int64_t repeat, uint64_t per,
                const std::string& call) {
  Lanes l;
  l.per = per;
  if (kind == SK_TWIN_MASK_COUNT) {
    CheckCount(static_cast<int64_t>(mask[0]), call);
    l.counter = l.contiguous = true;
    l.total = mask[0];
    l.repeats = static_cast<int64_t>((l.total + per - 1) / per);
    return l;
  }
  CheckRepeat(repeat, call);
  if (st.mask_counter) {
    l.counter = true;
    l.total = kind == SK_TWIN_MASK_REG ? st.mask_reg[0] : mask[0];
    l.repeats = static_cast<int64_t>((l.total + per - 1) / per);
    return l;
  }
  l.repeats = repeat;
  const uint64_t lanes_mask = per >= 64 ? ~uint64_t{0} : ((uint64_t{1} << per) - 1);
  if (kind == SK_TWIN_MASK_CONT) {
    if (mask[0] < 1 || mask[0] > per) {
      FailRule(call, "mask " + Num(mask[0]) + " is outside 1.." + Num(per),
               "in the normal mask mode a continuous mask counts the lanes of one 256-byte repeat: 1.." + Num(per) +
                   " for this element size (use SetMaskCount for a total count)");
    }
    for (uint64_t i = 0; i < mask[0]; ++i) l.bits[i / 64] |= uint64_t{1} << (i % 64);
    return l;
  }
  const uint64_t* m = kind == SK_TWIN_MASK_REG ? st.mask_reg : mask;
  l.bits[0] = m[0] & lanes_mask;
  l.bits[1] = per > 64 ? (m[1] & (per >= 128 ? ~uint64_t{0} : ((uint64_t{1} << (per - 64)) - 1))) : 0;
  if (kind == SK_TWIN_MASK_BITS && l.bits[0] == 0 && l.bits[1] == 0) {
    FailRule(call, "the bit mask selects no lane of a repeat (" + Num(per) + " lanes)",
             per > 64 ? "mask[0] and mask[1] must not both be 0" : "mask[0] must not be 0 (mask[1] is unused for 32-bit types)");
  }
  return l;
}

// Byte offset of lane i of repeat r in an operand.
uint64_t LaneOffset(const Lanes& l, int64_t r, uint64_t i, uint32_t e, uint32_t blk, uint32_t rep) {
  if (l.contiguous) return (static_cast<uint64_t>(r) * l.per + i) * e;
  const uint64_t per_block = kUbBlock / e;
  return static_cast<uint64_t>(r) * rep * kUbBlock + (i / per_block) * blk * kUbBlock + (i % per_block) * e;
}

// Raw bits of an integer element (zero-extended).
uint64_t RawBits(const uint8_t* p, uint32_t e) {
  uint64_t v = 0;
  std::memcpy(&v, p, e);
  return v;
}

bool TwoSources(uint32_t op) {
  return (op <= SK_TWIN_V_MIN) || op == SK_TWIN_X_AND || op == SK_TWIN_X_OR || op == SK_TWIN_X_COMPARE ||
         op == SK_TWIN_X_SELECT || op == SK_TWIN_X_COMPARE_REG || op == SK_TWIN_X_SELECT_REG ||
         op == SK_TWIN_X_POWER || op == SK_TWIN_X_FUSED_MUL_ADD || op == SK_TWIN_X_MUL_ADD_DST;
}

// The high-level element-wise math, exact in double before the one rounding.
double MathF(uint32_t op, double x, double y, uint32_t mode) {
  switch (op) {
    case SK_TWIN_X_FLOOR: return std::floor(x);
    case SK_TWIN_X_CEIL: return std::ceil(x);
    case SK_TWIN_X_TRUNC: return std::trunc(x);
    case SK_TWIN_X_ROUND: return std::round(x);
    case SK_TWIN_X_SIGN: return std::isnan(x) ? x : (x > 0 ? 1.0 : x < 0 ? -1.0 : 0.0);
    case SK_TWIN_X_SIN: return std::sin(x);
    case SK_TWIN_X_COS: return std::cos(x);
    case SK_TWIN_X_TAN: return std::tan(x);
    case SK_TWIN_X_TANH: return std::tanh(x);
    case SK_TWIN_X_SINH: return std::sinh(x);
    case SK_TWIN_X_COSH: return std::cosh(x);
    case SK_TWIN_X_ATAN: return std::atan(x);
    case SK_TWIN_X_ERF: return std::erf(x);
    case SK_TWIN_X_LOG2: return std::log2(x);
    case SK_TWIN_X_LOG10: return std::log10(x);
    case SK_TWIN_X_ASIN: return std::asin(x);
    case SK_TWIN_X_ACOS: return std::acos(x);
    case SK_TWIN_X_ERFC: return std::erfc(x);
    case SK_TWIN_X_SIGMOID: return 1.0 / (1.0 + std::exp(-x));
    case SK_TWIN_X_ASINH: return std::asinh(x);
    case SK_TWIN_X_ACOSH: return std::acosh(x);
    case SK_TWIN_X_ATANH: return std::atanh(x);
    default: return mode == 1 ? std::pow(y, x) : std::pow(x, y);  // POWER
  }
}

// Integer Power: base^exp by repeated multiplication, wrapping modulo 2^32
// as int32_t arithmetic does. A negative exponent has no integer result the
// documentation defines, so the launch fails rather than guess one.
int64_t IntPower(int64_t base, int64_t exp) {
  if (exp < 0) {
    FailRule("Power<int32_t>", "exponent " + std::to_string(exp) + " is negative (base " + std::to_string(base) + ")",
             "non-negative exponents (the twin does not model an integer result for negative ones)");
  }
  uint32_t result = 1, b = static_cast<uint32_t>(base);
  for (uint64_t e = static_cast<uint64_t>(exp); e != 0; e >>= 1) {
    if (e & 1) result *= b;
    b *= b;
  }
  return static_cast<int32_t>(result);
}

// One lane's result: writes `out` (e bytes of dst) or *bit for a compare.
void Lane(const SkTwinRep& a, double deq, const uint8_t* x, const uint8_t* y, const uint8_t* cur, bool sel, uint8_t* out,
          bool* bit) {
  const uint32_t dt = a.dtype, st = a.src_dtype;
  const uint32_t e = DtypeSize(dt);
  switch (a.op) {
    case SK_TWIN_V_DUPLICATE: std::memcpy(out, &a.scalar, e); return;
    case SK_TWIN_X_COPY: std::memcpy(out, x, e); return;
    case SK_TWIN_X_CAST:
      if (dt == SK_TWIN_DT_HALF && st == SK_TWIN_DT_I32) {  // scaled by DEQSCALE (checked before the lanes)
        StoreF(dt, out, static_cast<double>(LoadI(st, x)) * deq);
        return;
      }
      CastElem(dt, st, a.mode, DtypeIsFloat(st) ? LoadF(st, x) : 0.0, DtypeIsFloat(st) ? 0 : LoadI(st, x), out);
      return;
    case SK_TWIN_X_AXPY:
      StoreF(dt, out, LoadF(st, x) * Scalar(st, a.scalar) + LoadF(dt, cur));
      return;
    case SK_TWIN_X_FUSED_MUL_ADD:  // both exact in double, rounded once to T
      StoreF(dt, out, LoadF(dt, x) * LoadF(dt, cur) + LoadF(dt, y));
      return;
    case SK_TWIN_X_MUL_ADD_DST:
      StoreF(dt, out, LoadF(st, x) * LoadF(st, y) + LoadF(dt, cur));
      return;
    case SK_TWIN_X_SELECT:
    case SK_TWIN_X_SELECT_REG:
      if (sel) std::memcpy(out, x, e);
      else if (y != nullptr) std::memcpy(out, y, e);
      else std::memcpy(out, &a.scalar, e);
      return;
    case SK_TWIN_X_COMPARE:
    case SK_TWIN_X_COMPARE_REG: {
      const bool fl = DtypeIsFloat(dt);
      const double vx = fl ? LoadF(dt, x) : static_cast<double>(LoadI(dt, x));
      const double vy = y == nullptr ? (fl ? Scalar(dt, a.scalar) : static_cast<double>(ScalarI(dt, a.scalar)))
                                     : (fl ? LoadF(dt, y) : static_cast<double>(LoadI(dt, y)));
      *bit = CompareValues(a.mode, vx, vy);
      return;
    }
    case SK_TWIN_X_AND:
    case SK_TWIN_X_OR:
    case SK_TWIN_X_NOT: {
      const uint64_t u = RawBits(x, e);
      const uint64_t v = a.op == SK_TWIN_X_AND ? (u & RawBits(y, e)) : a.op == SK_TWIN_X_OR ? (u | RawBits(y, e)) : ~u;
      std::memcpy(out, &v, e);
      return;
    }
    case SK_TWIN_X_SHIFT_LEFT:
    case SK_TWIN_X_SHIFT_RIGHT: {
      const int64_t s = ScalarI(dt, a.scalar);
      const uint64_t width = uint64_t{e} * 8;
      uint64_t v;
      if (a.op == SK_TWIN_X_SHIFT_LEFT) {
        v = s < 0 || static_cast<uint64_t>(s) >= width ? 0 : RawBits(x, e) << s;
      } else if (DtypeIsSigned(dt)) {
        const int64_t sx = LoadI(dt, x);  // arithmetic: the sign fills in
        v = static_cast<uint64_t>(sx >> (s < 0 ? 0 : std::min<int64_t>(s, 63)));
      } else {
        v = s < 0 || static_cast<uint64_t>(s) >= width ? 0 : RawBits(x, e) >> s;
      }
      std::memcpy(out, &v, e);
      return;
    }
    case SK_TWIN_X_POWER:
      if (!DtypeIsFloat(dt)) {
        const int64_t xv = LoadI(dt, x);
        const int64_t yv = y != nullptr ? LoadI(dt, y) : ScalarI(dt, a.scalar);
        StoreI(dt, out, IntPower(a.mode == 1 ? yv : xv, a.mode == 1 ? xv : yv));
        return;
      }
      [[fallthrough]];
    default:
      if (a.op >= SK_TWIN_X_FLOOR && a.op < SK_TWIN_X_END) {
        const double yv = y != nullptr ? LoadF(dt, y) : Scalar(dt, a.scalar);
        StoreF(dt, out, MathF(a.op, LoadF(dt, x), yv, a.mode));
        return;
      }
      break;
  }
  // The SK_TWIN_V_* arithmetic, as in the count forms.
  const bool scalar_op = !TwoSources(a.op) && a.op != SK_TWIN_V_EXP && a.op != SK_TWIN_V_LN &&
                         a.op != SK_TWIN_V_ABS && a.op != SK_TWIN_V_SQRT && a.op != SK_TWIN_V_RSQRT &&
                         a.op != SK_TWIN_V_RECIPROCAL && a.op != SK_TWIN_V_RELU;
  if (DtypeIsFloat(dt)) {
    const double yv = y != nullptr ? LoadF(dt, y) : scalar_op ? Scalar(dt, a.scalar) : 0.0;
    StoreF(dt, out, ApplyF(a.op, LoadF(dt, x), yv));
  } else {
    const int64_t yv = y != nullptr ? LoadI(dt, y) : scalar_op ? ScalarI(dt, a.scalar) : 0;
    StoreI(dt, out, ApplyI(a.op, LoadI(dt, x), yv));
  }
}

}  // namespace

double DeqScale(const std::string& call) {
  const AscendState& st = State("Cast");
  if (!st.deq_set) {
    FailRule(call, "Cast from int32_t to half multiplies by the DEQSCALE register, which was never set",
             "call SetDeqScale(half scale) before it (roundMode does not apply to this conversion)");
  }
  return st.deq_scale;
}

}  // namespace sk_twin

using sk_twin::FailRule;
using sk_twin::Num;

extern "C" {

void sk_twin_rep(const SkTwinRep* rep) {
  const SkTwinRep& a = *rep;
  sk_twin::AscendState& st = sk_twin::State("vector instruction");
  const std::string call = sk_twin::RepCall(a);
  if (a.op >= SK_TWIN_X_END || (a.op >= SK_TWIN_V_COUNT && a.op < SK_TWIN_X_AND) || a.op == SK_TWIN_V_REDUCE_SUM ||
      a.op == SK_TWIN_V_REDUCE_MAX || a.op == SK_TWIN_V_REDUCE_MIN) {
    FailRule(call, "unknown vector operation " + Num(a.op), "an operation of sk_twin_ext.h");
  }
  const bool compare = a.op == SK_TWIN_X_COMPARE || a.op == SK_TWIN_X_COMPARE_REG;
  const bool select = a.op == SK_TWIN_X_SELECT || a.op == SK_TWIN_X_SELECT_REG;
  if (a.op == SK_TWIN_X_CAST && a.mode > 6) {
    FailRule(call, "unknown RoundMode " + Num(a.mode), "use CAST_NONE..CAST_ODD");
  }
  if (compare && a.mode > 5) FailRule(call, "unknown CMPMODE " + Num(a.mode), "use LT, GT, EQ, LE, GE, NE");
  if (compare && a.dtype == SK_TWIN_DT_I32 && a.mode != 2) {
    FailRule(call, "int32_t operands support only CMPMODE::EQ on Atlas A2/A3", "compare int32_t with EQ, or cast");
  }
  if (a.op == SK_TWIN_X_SELECT && a.mode > 2) FailRule(call, "unknown SELMODE " + Num(a.mode), "use SELMODE 0..2");
  const uint32_t ed = sk_twin::DtypeSize(a.dtype), es = sk_twin::DtypeSize(a.src_dtype);
  const uint64_t per = sk_twin::kRepeatBytes / std::max(ed, es);
  const sk_twin::Lanes lanes = sk_twin::MakeLanes(st, a.mask_kind, a.mask, a.repeat, per, call);
  if (a.mask_kind != SK_TWIN_MASK_COUNT && !compare && a.dst_blk == 0) {
    FailRule(call, "dstBlkStride is 0", "dstBlkStride is at least 1 (0 is undefined on the hardware)");
  }
  if (a.op == SK_TWIN_X_COMPARE && a.mask_kind == SK_TWIN_MASK_COUNT && a.src1 != nullptr &&
      (lanes.total * ed) % sk_twin::kRepeatBytes != 0) {
    FailRule(call, "count " + Num(lanes.total) + " x " + Num(ed) + " bytes is not a multiple of 256",
             "Compare works on whole 256-byte repeats");
  }
  // Where every operand's lanes reach, to check them before touching memory.
  uint64_t end_d = 0, end_0 = 0, end_1 = 0, last_k = 0;
  bool any = false;
  for (int64_t r = 0; r < lanes.repeats; ++r) {
    for (uint64_t i = 0; i < per; ++i) {
      if (!lanes.Active(r, i)) continue;
      any = true;
      last_k = std::max<uint64_t>(last_k, static_cast<uint64_t>(r) * per + i);
      if (!compare) end_d = std::max(end_d, sk_twin::LaneOffset(lanes, r, i, ed, a.dst_blk, a.dst_rep) + ed);
      end_0 = std::max(end_0, sk_twin::LaneOffset(lanes, r, i, es, a.src0_blk, a.src0_rep) + es);
      end_1 = std::max(end_1, sk_twin::LaneOffset(lanes, r, i, es, a.src1_blk, a.src1_rep) + es);
    }
  }
  if (!any) return;  // count or repeatTime 0: a NOP, as on Atlas A2/A3
  const double deq = a.op == SK_TWIN_X_CAST && a.dtype == SK_TWIN_DT_HALF && a.src_dtype == SK_TWIN_DT_I32
                         ? sk_twin::DeqScale(call)
                         : 0.0;
  const bool needs_src0 = a.op != SK_TWIN_V_DUPLICATE;
  const bool needs_src1 = sk_twin::TwoSources(a.op) && a.src1 != nullptr;
  // Compare's dst: one bit per lane, repeats packed one after the other.
  const uint64_t dst_bytes = compare ? (last_k + 8) / 8 : end_d;
  uint8_t* d = a.op == SK_TWIN_X_COMPARE_REG ? nullptr : sk_twin::Operand(a.dst, dst_bytes, call, "dst");
  const uint8_t* s0 = needs_src0 ? sk_twin::Operand(a.src0, end_0, call, sk_twin::TwoSources(a.op) ? "src0" : "src")
                                 : nullptr;
  const uint8_t* s1 = needs_src1 ? sk_twin::Operand(a.src1, end_1, call, "src1") : nullptr;
  std::vector<uint8_t> sel_bits;
  if (a.op == SK_TWIN_X_SELECT) {
    const uint64_t nbits = (a.mode == 0 ? std::min<uint64_t>(per, last_k + 1) : last_k + 1);
    const uint8_t* m = sk_twin::Operand(a.sel, (nbits + 7) / 8, call, "selMask");
    sel_bits.assign(m, m + (nbits + 7) / 8);
  } else if (a.op == SK_TWIN_X_SELECT_REG) {
    sel_bits.resize(16);
    std::memcpy(sel_bits.data(), st.cmp_reg, 16);
  }
  std::vector<uint8_t> cmp_out;
  if (compare) cmp_out.assign((last_k + 8) / 8, 0);
  if (a.op == SK_TWIN_X_COMPARE) std::memcpy(cmp_out.data(), d, cmp_out.size());
  struct Pending {
    uint64_t off;
    uint8_t bytes[8];
  };
  std::vector<Pending> pending;
  for (int64_t r = 0; r < lanes.repeats; ++r) {
    pending.clear();
    for (uint64_t i = 0; i < per; ++i) {
      if (!lanes.Active(r, i)) continue;
      const uint64_t k = static_cast<uint64_t>(r) * per + i;
      const uint8_t* x = s0 != nullptr ? s0 + sk_twin::LaneOffset(lanes, r, i, es, a.src0_blk, a.src0_rep) : nullptr;
      const uint8_t* y = s1 != nullptr ? s1 + sk_twin::LaneOffset(lanes, r, i, es, a.src1_blk, a.src1_rep) : nullptr;
      const uint64_t doff = compare ? 0 : sk_twin::LaneOffset(lanes, r, i, ed, a.dst_blk, a.dst_rep);
      bool sel = false;
      if (select) {
        const uint64_t b = (a.op == SK_TWIN_X_SELECT_REG || a.mode == 0) ? i : k;
        sel = ((sel_bits[b / 8] >> (b % 8)) & 1) != 0;
      }
      Pending p{doff, {0}};
      bool bit = false;
      sk_twin::Lane(a, deq, x, y, d != nullptr && !compare ? d + doff : nullptr, sel, p.bytes, &bit);
      if (compare) {
        const uint8_t m = static_cast<uint8_t>(1u << (k % 8));
        cmp_out[k / 8] = static_cast<uint8_t>(bit ? (cmp_out[k / 8] | m) : (cmp_out[k / 8] & ~m));
      } else {
        pending.push_back(p);
      }
    }
    for (const Pending& p : pending) std::memcpy(d + p.off, p.bytes, ed);
  }
  if (a.op == SK_TWIN_X_COMPARE) std::memcpy(d, cmp_out.data(), cmp_out.size());
  if (a.op == SK_TWIN_X_COMPARE_REG) {
    st.cmp_reg[0] = st.cmp_reg[1] = 0;
    std::memcpy(st.cmp_reg, cmp_out.data(), std::min<size_t>(16, cmp_out.size()));
  }
}

void sk_twin_mask(uint32_t what, uint64_t high, uint64_t low) {
  sk_twin::AscendState& st = sk_twin::State("mask register");
  switch (what) {
    case 0: st.mask_counter = false; return;
    case 1: st.mask_counter = true; return;
    case 2: st.mask_reg[0] = low; st.mask_reg[1] = high; return;
    case 4:  // SetVectorMask(len): a count in counter mode, the first len lanes in normal mode
      if (st.mask_counter) {
        st.mask_reg[0] = low;
        st.mask_reg[1] = 0;
      } else {
        st.mask_reg[0] = low >= 64 ? ~uint64_t{0} : ((uint64_t{1} << low) - 1);
        st.mask_reg[1] = low >= 128 ? ~uint64_t{0} : low <= 64 ? 0 : ((uint64_t{1} << (low - 64)) - 1);
      }
      return;
    default:
      st.mask_counter = false;
      st.mask_reg[0] = st.mask_reg[1] = ~uint64_t{0};
  }
}

void sk_twin_gather(uint32_t dtype, const SkTwinLocalRef* dst, const SkTwinLocalRef* src,
                    const SkTwinLocalRef* offsets, uint32_t base, uint32_t mask_kind, const uint64_t* mask,
                    int64_t repeat, uint32_t dst_rep) {
  sk_twin::AscendState& st = sk_twin::State("Gather");
  const uint32_t e = sk_twin::DtypeSize(dtype);
  std::string call = std::string("Gather<") + sk_twin::DtypeName(dtype) + ">(srcBaseAddr " + Num(base) + ", " +
                     sk_twin::MaskText(mask_kind, mask);
  if (mask_kind != SK_TWIN_MASK_COUNT) call += ", repeatTime " + std::to_string(repeat) + ", dstRepStride " + Num(dst_rep);
  call += ")";
  const uint64_t per = sk_twin::kRepeatBytes / e;
  const sk_twin::Lanes lanes = sk_twin::MakeLanes(st, mask_kind, mask, repeat, per, call);
  uint64_t last_k = 0, end_d = 0;
  bool any = false;
  for (int64_t r = 0; r < lanes.repeats; ++r) {
    for (uint64_t i = 0; i < per; ++i) {
      if (!lanes.Active(r, i)) continue;
      any = true;
      last_k = std::max<uint64_t>(last_k, static_cast<uint64_t>(r) * per + i);
      end_d = std::max(end_d, (lanes.contiguous ? (r * per + i) * e : r * uint64_t{dst_rep} * sk_twin::kUbBlock + i * e) + e);
    }
  }
  if (!any) return;
  sk_twin::CheckLocalAlign(*src, sk_twin::kUbBlock, call, "src");
  const uint8_t* offs = sk_twin::Operand(offsets, (last_k + 1) * 4, call, "srcOffset");
  uint8_t* d = sk_twin::Operand(dst, end_d, call, "dst");
  std::vector<std::pair<uint64_t, uint64_t>> moves;  // (dst offset, element bits)
  for (int64_t r = 0; r < lanes.repeats; ++r) {
    for (uint64_t i = 0; i < per; ++i) {
      if (!lanes.Active(r, i)) continue;
      const uint64_t k = static_cast<uint64_t>(r) * per + i;
      uint32_t off;
      std::memcpy(&off, offs + k * 4, 4);
      const uint64_t byte = uint64_t{base} + off;
      if (byte % e != 0) {
        FailRule(call, "srcOffset[" + Num(k) + "] = " + Num(off) + " (+ srcBaseAddr " + Num(base) +
                           ") is not a multiple of the " + Num(e) + "-byte element",
                 "offsets are byte offsets of whole elements of src");
      }
      const uint8_t* p = sk_twin::LocalAccess(*src, byte, e, call + ": element " + Num(k), "src");
      uint64_t v = 0;
      std::memcpy(&v, p, e);
      moves.push_back({lanes.contiguous ? k * e : r * uint64_t{dst_rep} * sk_twin::kUbBlock + i * e, v});
    }
  }
  for (const auto& m : moves) std::memcpy(d + m.first, &m.second, e);
}

uint64_t sk_twin_gather_mask(uint32_t dtype, const SkTwinLocalRef* dst, const SkTwinLocalRef* src0,
                             const SkTwinLocalRef* pattern_tensor, uint32_t pattern, uint32_t reduce_mode,
                             uint32_t mask, uint32_t src0_blk, int64_t repeat, uint32_t src0_rep,
                             uint32_t src1_rep) {
  sk_twin::AscendState& st = sk_twin::State("GatherMask");
  const uint32_t e = sk_twin::DtypeSize(dtype);
  const std::string call = std::string("GatherMask<") + sk_twin::DtypeName(dtype) + ">(src1Pattern " +
                           (pattern_tensor != nullptr ? std::string("tensor") : Num(pattern)) + ", reduceMode " +
                           (reduce_mode ? "true" : "false") + ", mask " + Num(mask) + ", {src0BlockStride " +
                           Num(src0_blk) + ", repeatTimes " + std::to_string(repeat) + ", src0RepeatStride " +
                           Num(src0_rep) + ", src1RepeatStride " + Num(src1_rep) + "})";
  if (pattern_tensor == nullptr && (pattern < 1 || pattern > 7)) {
    FailRule(call, "built-in src1Pattern " + Num(pattern) + " is outside 1..7",
             "1 even, 2 odd, 3-6 one of every four, 7 all elements; or pass a pattern tensor");
  }
  sk_twin::CheckRepeat(repeat, call);
  if (reduce_mode && mask == 0) FailRule(call, "mask is 0 in counter mode", "mask is 1..2^32-1 elements");
  const uint64_t per = sk_twin::kRepeatBytes / e;
  const uint64_t total = reduce_mode ? mask : static_cast<uint64_t>(repeat) * per;
  st.rsvd_cnt = 0;
  if (total == 0) return 0;
  const uint64_t per_block = sk_twin::kUbBlock / e;
  auto src_off = [&](uint64_t k) {
    const uint64_t r = k / per, i = k % per;
    return r * src0_rep * sk_twin::kUbBlock + (i / per_block) * src0_blk * sk_twin::kUbBlock + (i % per_block) * e;
  };
  // Pattern bit of element k: normal mode, repeat r reads its bits at r * src1RepeatStride blocks; counter
  // mode consumes the pattern continuously.
  auto pat_bit_index = [&](uint64_t k) {
    return reduce_mode ? k : (k / per) * src1_rep * sk_twin::kUbBlock * 8 + (k % per);
  };
  uint64_t end_s = 0, end_p = 0;
  for (uint64_t k = 0; k < total; ++k) {
    end_s = std::max(end_s, src_off(k) + e);
    end_p = std::max(end_p, pat_bit_index(k) / 8 + 1);
  }
  const uint8_t* s = sk_twin::Operand(src0, end_s, call, "src0");
  const uint8_t* pat = pattern_tensor != nullptr ? sk_twin::Operand(pattern_tensor, end_p, call, "src1Pattern") : nullptr;
  std::vector<uint8_t> kept;
  for (uint64_t k = 0; k < total; ++k) {
    const uint64_t i = k % per;
    bool take;
    if (pat != nullptr) {
      const uint64_t b = pat_bit_index(k);
      take = ((pat[b / 8] >> (b % 8)) & 1) != 0;
    } else {
      switch (pattern) {
        case 1: take = i % 2 == 0; break;
        case 2: take = i % 2 == 1; break;
        case 7: take = true; break;
        default: take = i % 4 == pattern - 3; break;
      }
    }
    if (take) kept.insert(kept.end(), s + src_off(k), s + src_off(k) + e);
  }
  if (!kept.empty()) {
    uint8_t* d = sk_twin::Operand(dst, kept.size(), call, "dst");
    std::memcpy(d, kept.data(), kept.size());
  }
  st.rsvd_cnt = kept.size() / e;
  return st.rsvd_cnt;
}

void sk_twin_broadcast(uint32_t dtype, const SkTwinLocalRef* dst, const SkTwinLocalRef* src, uint32_t dim,
                       const uint32_t* dst_shape, const uint32_t* src_shape) {
  std::string shapes;
  for (uint32_t i = 0; i < dim && i < 2; ++i) {
    shapes += (i ? ", " : "") + Num(src_shape[i]) + "->" + Num(dst_shape[i]);
  }
  const std::string call = std::string("Broadcast<") + sk_twin::DtypeName(dtype) + ", dim " + Num(dim) + ">(" + shapes + ")";
  if (dim < 1 || dim > 2) FailRule(call, "dim " + Num(dim), "dim is 1 or 2");
  const uint64_t rows_d = dim == 2 ? dst_shape[0] : 1, cols_d = dst_shape[dim - 1];
  const uint64_t rows_s = dim == 2 ? src_shape[0] : 1, cols_s = src_shape[dim - 1];
  if ((rows_s != rows_d && rows_s != 1) || (cols_s != cols_d && cols_s != 1)) {
    FailRule(call, "a source dimension is neither 1 nor the destination's", "broadcast only dimensions of size 1");
  }
  const uint32_t e = sk_twin::DtypeSize(dtype);
  if (rows_d * cols_d == 0) return;
  const uint8_t* s = sk_twin::Operand(src, rows_s * cols_s * e, call, "src");
  uint8_t* d = sk_twin::Operand(dst, rows_d * cols_d * e, call, "dst");
  const std::vector<uint8_t> in(s, s + rows_s * cols_s * e);
  for (uint64_t i = 0; i < rows_d; ++i) {
    for (uint64_t j = 0; j < cols_d; ++j) {
      std::memcpy(d + (i * cols_d + j) * e, in.data() + ((rows_s == 1 ? 0 : i) * cols_s + (cols_s == 1 ? 0 : j)) * e, e);
    }
  }
}

void sk_twin_sort(uint32_t what, uint32_t dtype, const SkTwinLocalRef* dst, const SkTwinLocalRef* src,
                  const SkTwinLocalRef* index, int64_t repeat, uint32_t full) {
  static const char* const kNames[] = {"Concat", "Sort", "Extract"};
  const std::string call = std::string(what < 3 ? kNames[what] : "?") + "<" + sk_twin::DtypeName(dtype) +
                           (what == 1 ? (full ? ", isFullSort true" : ", isFullSort false") : "") + ">(repeatTime " +
                           std::to_string(repeat) + ")";
  sk_twin::CheckRepeat(repeat, call);
  if (repeat == 0) return;
  const uint32_t e = sk_twin::DtypeSize(dtype);
  const uint64_t n = static_cast<uint64_t>(repeat) * (what == 0 ? 16 : 32);
  if (what == 0) {
    const uint8_t* s = sk_twin::Operand(src, n * e, call, "src");
    uint8_t* d = sk_twin::Operand(dst, n * e, call, "concat");
    std::memmove(d, s, n * e);
    return;
  }
  if (what == 2) {
    const uint8_t* s = sk_twin::Operand(src, n * 8, call, "sorted");
    uint8_t* v = sk_twin::Operand(dst, n * e, call, "dstValue");
    uint8_t* ix = sk_twin::Operand(index, n * 4, call, "dstIndex");
    const std::vector<uint8_t> in(s, s + n * 8);
    for (uint64_t i = 0; i < n; ++i) {
      std::memcpy(v + i * e, in.data() + i * 8, e);
      std::memcpy(ix + i * 4, in.data() + i * 8 + 4, 4);
    }
    return;
  }
  const uint8_t* s = sk_twin::Operand(src, n * e, call, "concat");
  const uint8_t* ix = sk_twin::Operand(index, n * 4, call, "index");
  uint8_t* d = sk_twin::Operand(dst, n * 8, call, "dst");
  struct Item {
    double score;
    uint64_t pos;
    uint8_t bits[4];
    uint32_t index;
  };
  std::vector<Item> items(n);
  for (uint64_t i = 0; i < n; ++i) {
    items[i].score = sk_twin::LoadF(dtype, s + i * e);
    items[i].pos = i;
    std::memcpy(items[i].bits, s + i * e, e);
    std::memcpy(&items[i].index, ix + i * 4, 4);
  }
  // Descending; a NaN counts as the largest; equal scores keep their input order.
  auto before = [](const Item& a, const Item& b) {
    const bool an = std::isnan(a.score), bn = std::isnan(b.score);
    if (an != bn) return an;
    return !an && a.score > b.score;
  };
  const uint64_t group = full ? n : 32;
  for (uint64_t g = 0; g < n; g += group) {
    std::stable_sort(items.begin() + g, items.begin() + g + group, before);
  }
  for (uint64_t i = 0; i < n; ++i) {
    uint8_t pair[8] = {0};
    std::memcpy(pair, items[i].bits, e);
    std::memcpy(pair + 4, &items[i].index, 4);
    std::memcpy(d + i * 8, pair, 8);
  }
}

void sk_twin_reduce_axis(uint32_t op, uint32_t dtype, const SkTwinLocalRef* dst, const SkTwinLocalRef* src,
                         uint32_t rows, uint32_t cols, uint32_t ar, uint32_t inner_pad) {
  const char* name = op == SK_TWIN_V_REDUCE_SUM ? "ReduceSum" : op == SK_TWIN_V_REDUCE_MAX ? "ReduceMax" : "ReduceMin";
  const std::string call = std::string(name) + "<" + sk_twin::DtypeName(dtype) + ", Pattern::Reduce::" +
                           (ar ? "AR" : "RA") + ">(srcShape {" + Num(rows) + ", " + Num(cols) + "}, srcInnerPad " +
                           (inner_pad ? "true" : "false") + ")";
  const uint32_t e = sk_twin::DtypeSize(dtype);
  const uint64_t stride = inner_pad ? (uint64_t{cols} * e + sk_twin::kUbBlock - 1) / sk_twin::kUbBlock * sk_twin::kUbBlock / e
                                    : cols;
  if (rows == 0 || cols == 0) return;
  const uint8_t* s = sk_twin::Operand(src, ((rows - 1) * stride + cols) * e, call, "src");
  const uint64_t outs = ar ? rows : cols;
  sk_twin::CheckLocalAlign(*dst, e, call, "dst");
  uint8_t* d = sk_twin::LocalAccess(*dst, 0, outs * e, call, "dst");
  std::vector<double> res(outs);
  for (uint64_t o = 0; o < outs; ++o) {
    const uint64_t n = ar ? cols : rows;
    std::vector<double> v(n);
    for (uint64_t k = 0; k < n; ++k) v[k] = sk_twin::LoadF(dtype, s + (ar ? o * stride + k : k * stride + o) * e);
    if (op == SK_TWIN_V_REDUCE_SUM) {
      if (ar) {
        res[o] = sk_twin::TreeSum(dtype, v);  // a row: the hardware's pairwise order
      } else {
        double acc = v[0];  // a column: row after row, each add rounded to T
        for (uint64_t k = 1; k < n; ++k) {
          uint8_t tmp[8];
          sk_twin::StoreF(dtype, tmp, acc + v[k]);
          acc = sk_twin::LoadF(dtype, tmp);
        }
        res[o] = acc;
      }
      continue;
    }
    double best = v[0];
    for (uint64_t k = 1; k < n && !std::isnan(best); ++k) {
      if (std::isnan(v[k]) || (op == SK_TWIN_V_REDUCE_MAX ? v[k] > best : v[k] < best)) best = v[k];
    }
    res[o] = best;
  }
  for (uint64_t o = 0; o < outs; ++o) sk_twin::StoreF(dtype, d + o * e, res[o]);
}

void sk_twin_trans5hd(uint32_t dtype, const SkTwinLocalRef* dst_refs, const SkTwinLocalRef* src_refs,
                      const uint64_t* dst_addrs, const uint64_t* src_addrs, int64_t repeat, uint32_t dst_rep,
                      uint32_t src_rep, uint32_t dst_high, uint32_t src_high) {
  const uint64_t e = sk_twin::DtypeSize(dtype);
  if (e != 1 && e != 2 && e != 4) FailRule("TransDataTo5HD", "element size " + Num(e), "1, 2 or 4 bytes");
  const std::string call = std::string("TransDataTo5HD<") + sk_twin::DtypeName(dtype) + ">(repeatTimes " +
                           std::to_string(repeat) + ", dstRepStride " + Num(dst_rep) + ", srcRepStride " +
                           Num(src_rep) + (e == 1 ? std::string(", dstHighHalf ") + (dst_high ? "true" : "false") + ", srcHighHalf " +
                                                 (src_high ? "true" : "false")
                                           : std::string()) +
                           ")";
  sk_twin::CheckRepeat(repeat, call);
  if (repeat == 0) return;
  const uint64_t blk = sk_twin::kUbBlock;
  auto offset = [&](int64_t r, uint32_t stride) {
    return (repeat == 1 ? 1 : static_cast<uint64_t>(r)) * stride * blk;
  };
  // The 32-byte block of list entry i in repeat r, checked.
  auto block = [&](bool dst, uint32_t i, int64_t r) -> uint8_t* {
    const uint64_t off = offset(r, dst ? dst_rep : src_rep);
    const std::string role = std::string(dst ? "dstList[" : "srcList[") + Num(i) + "]";
    if (dst ? dst_refs != nullptr : src_refs != nullptr) {
      const SkTwinLocalRef& t = (dst ? dst_refs : src_refs)[i];
      sk_twin::CheckLocalAlign(t, sk_twin::kUbBlock, call, role.c_str());
      return sk_twin::LocalAccess(t, off, blk, call, role.c_str());
    }
    const uint64_t addr = (dst ? dst_addrs : src_addrs)[i];
    if (addr % blk != 0) FailRule(call, role + " is UB address " + Num(addr) + ", not 32-byte aligned", "align it");
    return static_cast<uint8_t*>(::sk_twin_local(1, addr + off, blk));
  };
  // Each repeat reads the 16 source DataBlocks as a 16-row matrix and writes
  // its columns: b16 column j fills DataBlock j; b8 column (srcHighHalf ? 16 :
  // 0) + j fills half j of the destination (dstHighHalf: bytes 16..31); b32
  // column p (8 of them) fills DataBlocks 2p (rows 0-7) and 2p + 1 (rows 8-15).
  for (int64_t r = 0; r < repeat; ++r) {
    uint8_t m[16][32];
    for (uint32_t i = 0; i < 16; ++i) std::memcpy(m[i], block(false, i, r), blk);
    uint8_t out[16][32];
    for (uint32_t k = 0; k < 16; ++k) {
      if (e == 1) std::memcpy(out[k], block(true, k, r), blk);  // the other half stays
    }
    for (uint32_t i = 0; i < 16; ++i) {
      if (e == 2) {
        for (uint32_t j = 0; j < 16; ++j) std::memcpy(&out[j][i * 2], &m[i][j * 2], 2);
      } else if (e == 1) {
        for (uint32_t j = 0; j < 16; ++j) out[j][(dst_high ? 16 : 0) + i] = m[i][(src_high ? 16 : 0) + j];
      } else {
        for (uint32_t p = 0; p < 8; ++p) std::memcpy(&out[2 * p + i / 8][(i % 8) * 4], &m[i][p * 4], 4);
      }
    }
    for (uint32_t k = 0; k < 16; ++k) std::memcpy(block(true, k, r), out[k], blk);
  }
}

void sk_twin_mrgsort(uint32_t dtype, const SkTwinLocalRef* dst, const SkTwinLocalRef* srcs, const uint16_t* lens,
                     uint32_t valid_bits, uint32_t stop_exhausted, int64_t repeat) {
  const std::string call = std::string("MrgSort<") + sk_twin::DtypeName(dtype) + ">(elementLengths {" +
                           Num(lens[0]) + ", " + Num(lens[1]) + ", " + Num(lens[2]) + ", " + Num(lens[3]) +
                           "}, validBit " + Num(valid_bits) + ", repeatTimes " + std::to_string(repeat) + ")";
  if (valid_bits != 3 && valid_bits != 7 && valid_bits != 15) {
    FailRule(call, "validBit " + Num(valid_bits), "3 (2 lists), 7 (3 lists) or 15 (4 lists)");
  }
  sk_twin::CheckRepeat(repeat, call);
  const uint32_t lists = valid_bits == 3 ? 2 : valid_bits == 7 ? 3 : 4;
  uint64_t total = 0;
  for (uint32_t k = 0; k < lists; ++k) {
    if (lens[k] > 4095) FailRule(call, "elementLengths[" + Num(k) + "] " + Num(lens[k]), "0..4095 pairs");
    total += lens[k];
  }
  if (repeat > 1 && (lists != 4 || stop_exhausted || lens[0] != lens[1] || lens[1] != lens[2] || lens[2] != lens[3])) {
    FailRule(call, "repeatTimes " + std::to_string(repeat) + " with lists that are not 4 of one length",
             "repeatTimes > 1 needs validBit 15, equal lengths, contiguous lists and ifExhaustedSuspension false");
  }
  std::vector<uint64_t> pos;
  for (int64_t r = 0; r < repeat; ++r) {
    const uint64_t shift = static_cast<uint64_t>(r) * total * 8;
    std::vector<std::vector<uint8_t>> in(lists);
    for (uint32_t k = 0; k < lists; ++k) {
      const uint8_t* p = sk_twin::LocalAccess(srcs[k], shift, uint64_t{lens[k]} * 8, call, "src");
      in[k].assign(p, p + uint64_t{lens[k]} * 8);
    }
    std::vector<uint8_t> out;
    pos.assign(lists, 0);
    while (true) {
      int64_t pick = -1;
      double best = 0;
      bool exhausted = false;
      for (uint32_t k = 0; k < lists; ++k) {
        if (pos[k] >= lens[k]) {
          exhausted = true;
          continue;
        }
        const double v = sk_twin::LoadF(dtype, in[k].data() + pos[k] * 8);
        if (pick < 0 || v > best || (std::isnan(v) && !std::isnan(best))) {
          pick = k;
          best = v;
        }
      }
      if (pick < 0 || (stop_exhausted && exhausted)) break;
      out.insert(out.end(), in[pick].begin() + pos[pick] * 8, in[pick].begin() + pos[pick] * 8 + 8);
      ++pos[pick];
    }
    if (!out.empty()) {
      uint8_t* d = sk_twin::LocalAccess(*dst, shift, out.size(), call, "dst");
      std::memcpy(d, out.data(), out.size());
    }
  }
  // GetMrgSortResult: the pairs taken from each list (by the last repeat).
  sk_twin::AscendState& st = sk_twin::State("MrgSort");
  for (uint32_t k = 0; k < 4; ++k) st.mrg_taken[k] = k < pos.size() ? static_cast<uint16_t>(pos[k]) : 0;
}

void sk_twin_set_deq_scale(uint64_t half_bits) {
  sk_twin::AscendState& st = sk_twin::State("SetDeqScale");
  st.deq_set = true;
  st.deq_scale = sk_twin::Scalar(SK_TWIN_DT_HALF, half_bits);
}

uint64_t sk_twin_rsvd_cnt(void) { return sk_twin::State("GetRsvdCnt").rsvd_cnt; }

uint64_t sk_twin_acc_val(void) { return sk_twin::State("GetAccVal").acc_val; }

void sk_twin_mrg_sort_result(uint16_t* taken) {
  const sk_twin::AscendState& st = sk_twin::State("GetMrgSortResult");
  for (int k = 0; k < 4; ++k) taken[k] = st.mrg_taken[k];
}

void sk_twin_repeat_reduce(uint32_t op, uint32_t dtype, const SkTwinLocalRef* dst, const SkTwinLocalRef* src,
                           uint32_t mask_kind, const uint64_t* mask, int64_t repeat, uint32_t dst_rep,
                           uint32_t src_blk, uint32_t src_rep, uint32_t order) {
  sk_twin::AscendState& st = sk_twin::State("reduction");
  const bool pair = op == 1000;
  const bool block = op >= 100 && op < 1000;
  const uint32_t base_op = block ? op - 100 : op;
  const char* name = pair ? "PairReduceSum"
                     : base_op == SK_TWIN_V_REDUCE_SUM ? (block ? "BlockReduceSum" : "WholeReduceSum")
                     : base_op == SK_TWIN_V_REDUCE_MAX ? (block ? "BlockReduceMax" : "WholeReduceMax")
                                                      : (block ? "BlockReduceMin" : "WholeReduceMin");
  const std::string call = std::string(name) + "<" + sk_twin::DtypeName(dtype) + ">(" +
                           sk_twin::MaskText(mask_kind, mask) + ", repeatTime " + std::to_string(repeat) +
                           ", dstRepStride " + Num(dst_rep) + ", srcBlkStride " + Num(src_blk) + ", srcRepStride " +
                           Num(src_rep) + (!pair && !block && base_op != SK_TWIN_V_REDUCE_SUM
                                               ? ", order " + Num(order) : std::string()) + ")";
  if (order > 3) FailRule(call, "unknown ReduceOrder " + Num(order), "ORDER_VALUE_INDEX..ORDER_ONLY_INDEX");
  const uint32_t e = sk_twin::DtypeSize(dtype);
  const uint64_t per = sk_twin::kRepeatBytes / e;
  const sk_twin::Lanes lanes = sk_twin::MakeLanes(st, mask_kind, mask, repeat, per, call);
  if (lanes.repeats == 0) return;
  const bool whole_minmax = !pair && !block && base_op != SK_TWIN_V_REDUCE_SUM;
  // Results per repeat, their size and the dst unit of dstRepStride.
  const uint64_t results = pair ? per / 2 : block ? 8 : 1;
  const uint64_t result_bytes = whole_minmax ? (order <= 1 ? 2 * e : order == 2 ? e : 4) : e;
  const uint64_t unit = pair ? 128 : block ? 8 * e : result_bytes;
  const uint64_t per_block = sk_twin::kUbBlock / e;
  uint64_t end_s = 0;
  for (int64_t r = 0; r < lanes.repeats; ++r) {
    for (uint64_t i = 0; i < per; ++i) {
      if (lanes.Active(r, i)) {
        end_s = std::max(end_s, r * uint64_t{src_rep} * sk_twin::kUbBlock + (i / per_block) * src_blk * sk_twin::kUbBlock +
                                    (i % per_block) * e + e);
      }
    }
  }
  const uint8_t* s = sk_twin::Operand(src, end_s, call, "src");
  sk_twin::CheckLocalAlign(*dst, static_cast<uint32_t>(whole_minmax ? result_bytes : e), call, "dst");
  const uint64_t end_d = (lanes.repeats - 1) * dst_rep * unit + results * result_bytes;
  uint8_t* d = sk_twin::LocalAccess(*dst, 0, end_d, call, "dst");
  for (int64_t r = 0; r < lanes.repeats; ++r) {
    std::vector<double> v(per, 0.0);
    std::vector<bool> on(per, false);
    for (uint64_t i = 0; i < per; ++i) {
      if (!lanes.Active(r, i)) continue;
      on[i] = true;
      v[i] = sk_twin::LoadF(dtype, s + r * uint64_t{src_rep} * sk_twin::kUbBlock +
                                       (i / per_block) * src_blk * sk_twin::kUbBlock + (i % per_block) * e);
    }
    uint8_t* out = d + r * dst_rep * unit;
    if (pair) {
      for (uint64_t j = 0; j < per / 2; ++j) {
        if (on[2 * j] || on[2 * j + 1]) sk_twin::StoreF(dtype, out + j * e, v[2 * j] + v[2 * j + 1]);
      }
      continue;
    }
    const uint64_t group = block ? per_block : per;
    for (uint64_t g = 0; g < results; ++g) {
      const uint64_t lo = g * group, hi = lo + group;
      if (base_op == SK_TWIN_V_REDUCE_SUM) {
        sk_twin::StoreF(dtype, out + g * e,
                        sk_twin::TreeSum(dtype, std::vector<double>(v.begin() + lo, v.begin() + hi)));
        continue;
      }
      // Max/Min over the active lanes: the first extreme wins, a NaN wins.
      int64_t best = -1;
      for (uint64_t i = lo; i < hi; ++i) {
        if (!on[i]) continue;
        if (best < 0) { best = static_cast<int64_t>(i); continue; }
        const double bv = v[best];
        if (std::isnan(bv)) break;
        if (std::isnan(v[i]) || (base_op == SK_TWIN_V_REDUCE_MAX ? v[i] > bv : v[i] < bv)) best = static_cast<int64_t>(i);
      }
      if (best < 0) continue;
      uint8_t value[8];
      sk_twin::StoreF(dtype, value, v[best]);
      if (block) {
        std::memcpy(out + g * e, value, e);
        continue;
      }
      const uint64_t index = static_cast<uint64_t>(best) - lo;  // the lane within the repeat
      switch (order) {
        case 0: std::memcpy(out, value, e); std::memcpy(out + e, &index, e); break;
        case 1: std::memcpy(out, &index, e); std::memcpy(out + e, value, e); break;
        case 2: std::memcpy(out, value, e); break;
        default: { const uint32_t i32 = static_cast<uint32_t>(index); std::memcpy(out, &i32, 4); }
      }
    }
  }
}

void sk_twin_brcb(uint32_t dtype, const SkTwinLocalRef* dst, const SkTwinLocalRef* src, int64_t repeat,
                  uint32_t dst_blk, uint32_t dst_rep) {
  const uint32_t e = sk_twin::DtypeSize(dtype);
  const std::string call = std::string("Brcb<") + sk_twin::DtypeName(dtype) + ">(repeatTime " +
                           std::to_string(repeat) + ", {dstBlkStride " + Num(dst_blk) + ", dstRepStride " +
                           Num(dst_rep) + "})";
  sk_twin::CheckRepeat(repeat, call);
  if (repeat == 0) return;
  const uint8_t* s = sk_twin::Operand(src, static_cast<uint64_t>(repeat) * 8 * e, call, "src");
  uint64_t end_d = 0;
  for (int64_t r = 0; r < repeat; ++r) {
    for (uint64_t j = 0; j < 8; ++j) {
      end_d = std::max(end_d, r * uint64_t{dst_rep} * sk_twin::kUbBlock + j * dst_blk * sk_twin::kUbBlock + sk_twin::kUbBlock);
    }
  }
  uint8_t* d = sk_twin::Operand(dst, end_d, call, "dst");
  const std::vector<uint8_t> in(s, s + static_cast<uint64_t>(repeat) * 8 * e);
  for (int64_t r = 0; r < repeat; ++r) {
    for (uint64_t j = 0; j < 8; ++j) {
      uint8_t* block = d + r * uint64_t{dst_rep} * sk_twin::kUbBlock + j * dst_blk * sk_twin::kUbBlock;
      for (uint64_t o = 0; o < sk_twin::kUbBlock; o += e) std::memcpy(block + o, in.data() + (r * 8 + j) * e, e);
    }
  }
}

void sk_twin_arith(uint32_t dtype, const SkTwinLocalRef* dst, uint64_t first, uint64_t diff, int64_t count,
                   const char* name) {
  const std::string call = std::string(name) + "<" + sk_twin::DtypeName(dtype) + ">(count " + std::to_string(count) + ")";
  sk_twin::CheckCount(count, call);
  if (count == 0) return;
  const uint32_t e = sk_twin::DtypeSize(dtype);
  uint8_t* d = sk_twin::Operand(dst, static_cast<uint64_t>(count) * e, call, "dst");
  if (sk_twin::DtypeIsFloat(dtype)) {
    const double f = sk_twin::Scalar(dtype, first), s = sk_twin::Scalar(dtype, diff);
    for (int64_t i = 0; i < count; ++i) sk_twin::StoreF(dtype, d + i * e, f + static_cast<double>(i) * s);
    return;
  }
  const int64_t f = sk_twin::ScalarI(dtype, first), s = sk_twin::ScalarI(dtype, diff);
  for (int64_t i = 0; i < count; ++i) {
    sk_twin::StoreI(dtype, d + i * e, static_cast<int64_t>(static_cast<uint64_t>(f) + static_cast<uint64_t>(i) * static_cast<uint64_t>(s)));
  }
}

}  // extern "C"
