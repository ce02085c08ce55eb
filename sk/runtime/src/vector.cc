// The vector instructions of the twin's Ascend C surface (count forms), on
// the worker's Unified Buffer. Floating-point work is done in double and
// rounded once to the destination type (round to nearest even unless a Cast
// says otherwise), which makes + - * / and sqrt correctly rounded for half,
// bfloat16_t and float alike. Integer arithmetic wraps. NaN propagates
// through Max/Min/Relu. Every call checks its operands (alive, inside their
// buffers, 32-byte aligned) and its count before touching memory.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "ascendc.h"
#include "elem.h"
#include "sk_twin_half.h"

namespace sk_twin {

const char* const kOpNames[SK_TWIN_V_COUNT] = {
    "Add",  "Sub",   "Mul",   "Div",  "Max",       "Min",        "Adds",       "Muls",
    "Maxs", "Mins",  "Exp",   "Ln",   "Abs",       "Sqrt",       "Rsqrt",      "Reciprocal",
    "Relu", "LeakyRelu", "Duplicate", "ReduceSum", "ReduceMax", "ReduceMin",
};

const char* OpName(uint32_t op) { return op < SK_TWIN_V_COUNT ? kOpNames[op] : "?"; }

// The element helpers below are shared with vector_ext.cc (elem.h).

// The exact value of a floating-point element.
double LoadF(uint32_t dt, const uint8_t* p) {
  switch (dt) {
    case SK_TWIN_DT_HALF: {
      uint16_t b;
      std::memcpy(&b, p, 2);
      return sk_twin_fp::ToDouble(b, 5, 10);
    }
    case SK_TWIN_DT_BF16: {
      uint16_t b;
      std::memcpy(&b, p, 2);
      return sk_twin_fp::ToDouble(b, 8, 7);
    }
    case SK_TWIN_DT_F32: {
      float f;
      std::memcpy(&f, p, 4);
      return f;
    }
    default: {
      double d;
      std::memcpy(&d, p, 8);
      return d;
    }
  }
}

// Rounds v to the floating type dt with mode and stores it.
void StoreF(uint32_t dt, uint8_t* p, double v, sk_twin_fp::Round mode) {
  switch (dt) {
    case SK_TWIN_DT_HALF: {
      const uint16_t b = static_cast<uint16_t>(sk_twin_fp::FromDouble(v, 5, 10, mode));
      std::memcpy(p, &b, 2);
      return;
    }
    case SK_TWIN_DT_BF16: {
      const uint16_t b = static_cast<uint16_t>(sk_twin_fp::FromDouble(v, 8, 7, mode));
      std::memcpy(p, &b, 2);
      return;
    }
    case SK_TWIN_DT_F32: {
      const uint32_t b = static_cast<uint32_t>(sk_twin_fp::FromDouble(v, 8, 23, mode));
      std::memcpy(p, &b, 4);
      return;
    }
    default:
      std::memcpy(p, &v, 8);
  }
}

// Integer elements, widened.
int64_t LoadI(uint32_t dt, const uint8_t* p) {
  switch (dt) {
    case SK_TWIN_DT_U8: return *p;
    case SK_TWIN_DT_I8: return static_cast<int8_t>(*p);
    case SK_TWIN_DT_U16: { uint16_t v; std::memcpy(&v, p, 2); return v; }
    case SK_TWIN_DT_I16: { int16_t v; std::memcpy(&v, p, 2); return v; }
    case SK_TWIN_DT_U32: { uint32_t v; std::memcpy(&v, p, 4); return v; }
    case SK_TWIN_DT_I32: { int32_t v; std::memcpy(&v, p, 4); return v; }
    default: { int64_t v; std::memcpy(&v, p, 8); return v; }
  }
}

// Stores the low bits (two's complement wrap).
void StoreI(uint32_t dt, uint8_t* p, int64_t v) {
  const uint64_t u = static_cast<uint64_t>(v);
  std::memcpy(p, &u, DtypeSize(dt));  // little-endian: the low bytes
}

int64_t IntMin(uint32_t dt) {
  switch (dt) {
    case SK_TWIN_DT_I8: return INT8_MIN;
    case SK_TWIN_DT_I16: return INT16_MIN;
    case SK_TWIN_DT_I32: return INT32_MIN;
    case SK_TWIN_DT_I64: return INT64_MIN;
    default: return 0;
  }
}
int64_t IntMax(uint32_t dt) {
  switch (dt) {
    case SK_TWIN_DT_I8: return INT8_MAX;
    case SK_TWIN_DT_U8: return UINT8_MAX;
    case SK_TWIN_DT_I16: return INT16_MAX;
    case SK_TWIN_DT_U16: return UINT16_MAX;
    case SK_TWIN_DT_I32: return INT32_MAX;
    case SK_TWIN_DT_U32: return UINT32_MAX;
    default: return INT64_MAX;
  }
}

double Scalar(uint32_t dt, uint64_t bits) { return LoadF(dt, reinterpret_cast<const uint8_t*>(&bits)); }
int64_t ScalarI(uint32_t dt, uint64_t bits) { return LoadI(dt, reinterpret_cast<const uint8_t*>(&bits)); }

double MaxF(double a, double b) { return std::isnan(a) || std::isnan(b) ? std::nan("") : (a >= b ? a : b); }
double MinF(double a, double b) { return std::isnan(a) || std::isnan(b) ? std::nan("") : (a <= b ? a : b); }

// Rounds to an integral value in double with an AscendC::RoundMode value.
double RoundIntegral(double v, uint32_t mode) {
  if (!std::isfinite(v)) return v;
  switch (mode) {
    case 2: return std::floor(v);  // CAST_FLOOR
    case 3: return std::ceil(v);   // CAST_CEIL
    case 4: return std::round(v);  // CAST_ROUND: half away from zero
    case 5: return std::trunc(v);  // CAST_TRUNC
    default: {                     // CAST_NONE/CAST_RINT/CAST_ODD: nearest, ties to even
      const double f = std::floor(v);
      const double d = v - f;
      if (d > 0.5) return f + 1;
      if (d < 0.5) return f;
      return std::fmod(f, 2.0) == 0 ? f : f + 1;
    }
  }
}

sk_twin_fp::Round FpMode(uint32_t mode) {
  switch (mode) {
    case 2: return sk_twin_fp::kFloor;
    case 3: return sk_twin_fp::kCeil;
    case 4: return sk_twin_fp::kAway;
    case 5: return sk_twin_fp::kTrunc;
    case 6: return sk_twin_fp::kOdd;
    default: return sk_twin_fp::kRint;
  }
}

const char* RoundName(uint32_t mode) {
  static const char* const kNames[] = {"CAST_NONE", "CAST_RINT",  "CAST_FLOOR", "CAST_CEIL",
                                       "CAST_ROUND", "CAST_TRUNC", "CAST_ODD"};
  return mode < 7 ? kNames[mode] : "?";
}

std::string Call(uint32_t op, uint32_t dt, int64_t count) {
  return std::string(OpName(op)) + "<" + DtypeName(dt) + ">(count " + std::to_string(count) + ")";
}

void CheckCount(int64_t count, const std::string& call) {
  if (count < 0) FailRule(call, "count " + std::to_string(count) + " is negative", "count is the number of elements, >= 0");
}

// Checks an operand of `count` elements and returns its memory.
uint8_t* Operand(const SkTwinLocalRef* t, uint64_t bytes, const std::string& call, const char* role) {
  CheckLocalAlign(*t, kUbBlock, call, role);
  return LocalAccess(*t, 0, bytes, call, role);
}

double ApplyF(uint32_t op, double a, double b) {
  switch (op) {
    case SK_TWIN_V_ADD: case SK_TWIN_V_ADDS: return a + b;
    case SK_TWIN_V_SUB: return a - b;
    case SK_TWIN_V_MUL: case SK_TWIN_V_MULS: return a * b;
    case SK_TWIN_V_DIV: return a / b;
    case SK_TWIN_V_MAX: case SK_TWIN_V_MAXS: return MaxF(a, b);
    case SK_TWIN_V_MIN: case SK_TWIN_V_MINS: return MinF(a, b);
    case SK_TWIN_V_EXP: return std::exp(a);
    case SK_TWIN_V_LN: return std::log(a);
    case SK_TWIN_V_ABS: return std::fabs(a);
    case SK_TWIN_V_SQRT: return std::sqrt(a);
    case SK_TWIN_V_RSQRT: return 1.0 / std::sqrt(a);
    case SK_TWIN_V_RECIPROCAL: return 1.0 / a;
    case SK_TWIN_V_RELU: return std::isnan(a) ? a : (a > 0 ? a : 0.0);
    case SK_TWIN_V_LEAKY_RELU: return a >= 0 ? a : a * b;
    default: return a;
  }
}

int64_t ApplyI(uint32_t op, int64_t a, int64_t b) {
  const uint64_t ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
  switch (op) {
    case SK_TWIN_V_ADD: case SK_TWIN_V_ADDS: return static_cast<int64_t>(ua + ub);
    case SK_TWIN_V_SUB: return static_cast<int64_t>(ua - ub);
    case SK_TWIN_V_MUL: case SK_TWIN_V_MULS: return static_cast<int64_t>(ua * ub);
    case SK_TWIN_V_MAX: case SK_TWIN_V_MAXS: return a > b ? a : b;
    case SK_TWIN_V_MIN: case SK_TWIN_V_MINS: return a < b ? a : b;
    case SK_TWIN_V_ABS: return a < 0 ? static_cast<int64_t>(0 - ua) : a;
    case SK_TWIN_V_RELU: return a > 0 ? a : 0;
    default: return a;
  }
}

bool Binary(uint32_t op) { return op <= SK_TWIN_V_MIN; }
bool WithScalar(uint32_t op) {
  return (op >= SK_TWIN_V_ADDS && op <= SK_TWIN_V_MINS) || op == SK_TWIN_V_LEAKY_RELU;
}

// Sum of v[0..n) in T's precision with the hardware's order: a binary tree
// of adjacent pairs inside each 256-byte repeat, then the same over the
// repeats' results until one value is left. For 256 < n*size <= 1024 bytes
// the repeats are first added lane by lane into one repeat.
double TreeSum(uint32_t dt, std::vector<double> v) {
  auto round = [dt](double x) {
    uint8_t tmp[8];
    StoreF(dt, tmp, x);
    return LoadF(dt, tmp);
  };
  auto tree = [&round](std::vector<double> a) {
    while (a.size() > 1) {
      std::vector<double> next((a.size() + 1) / 2);
      for (size_t i = 0; i < next.size(); ++i) {
        next[i] = 2 * i + 1 < a.size() ? round(a[2 * i] + a[2 * i + 1]) : a[2 * i];
      }
      a.swap(next);
    }
    return a.empty() ? 0.0 : a[0];
  };
  const size_t per = kRepeatBytes / DtypeSize(dt);
  const size_t bytes = v.size() * DtypeSize(dt);
  if (bytes > kRepeatBytes && bytes <= 4 * kRepeatBytes) {
    std::vector<double> acc(v.begin(), v.begin() + per);
    for (size_t i = per; i < v.size(); ++i) acc[i % per] = round(acc[i % per] + v[i]);
    return tree(acc);
  }
  while (v.size() > 1) {
    std::vector<double> partial;
    for (size_t r = 0; r < v.size(); r += per) {
      partial.push_back(tree(std::vector<double>(v.begin() + r, v.begin() + std::min(v.size(), r + per))));
    }
    v.swap(partial);
  }
  return v[0];
}

bool CompareValues(uint32_t mode, double a, double b) {
  switch (mode) {
    case 0: return a < b;
    case 1: return a > b;
    case 2: return a == b;
    case 3: return a <= b;
    case 4: return a >= b;
    default: return a != b;  // NE (true for NaN)
  }
}

const char* CmpName(uint32_t mode) {
  static const char* const kNames[] = {"LT", "GT", "EQ", "LE", "GE", "NE"};
  return mode < 6 ? kNames[mode] : "?";
}

// One element of a Cast: fv (floating source) or iv (integer source) to
// dst_dtype at out, with an AscendC::RoundMode value.
void CastElem(uint32_t dst_dtype, uint32_t src_dtype, uint32_t round_mode, double fv, int64_t iv, uint8_t* out) {
  const bool df = DtypeIsFloat(dst_dtype), sf = DtypeIsFloat(src_dtype);
  const uint64_t de = DtypeSize(dst_dtype);
  if (df && sf) {
    if (dst_dtype == src_dtype) {
      StoreF(dst_dtype, out, round_mode == 0 ? fv : RoundIntegral(fv, round_mode));
    } else {
      StoreF(dst_dtype, out, fv, FpMode(round_mode));
    }
  } else if (df) {
    const int ebits = dst_dtype == SK_TWIN_DT_HALF ? 5 : dst_dtype == SK_TWIN_DT_F64 ? 11 : 8;
    const int mbits = dst_dtype == SK_TWIN_DT_HALF ? 10 : dst_dtype == SK_TWIN_DT_BF16 ? 7
                      : dst_dtype == SK_TWIN_DT_F32 ? 23 : 52;
    // u64 sources above INT64_MAX are not among the supported casts.
    const uint64_t bits = sk_twin_fp::FromInt64(iv, ebits, mbits, FpMode(round_mode));
    std::memcpy(out, &bits, de);
  } else {
    int64_t v;
    if (sf) {
      const double r = RoundIntegral(fv, round_mode);
      if (std::isnan(r)) v = 0;
      else if (r <= static_cast<double>(IntMin(dst_dtype))) v = IntMin(dst_dtype);
      else if (r >= static_cast<double>(IntMax(dst_dtype))) v = IntMax(dst_dtype);
      else v = static_cast<int64_t>(r);
    } else {
      v = iv < IntMin(dst_dtype) ? IntMin(dst_dtype) : iv > IntMax(dst_dtype) ? IntMax(dst_dtype) : iv;
    }
    StoreI(dst_dtype, out, v);
  }
}

}  // namespace sk_twin

using sk_twin::FailRule;

extern "C" {

void sk_twin_vector(uint32_t op, uint32_t dtype, const SkTwinLocalRef* dst, const SkTwinLocalRef* src0,
                    const SkTwinLocalRef* src1, uint64_t scalar, int64_t count) {
  const std::string call = sk_twin::Call(op, dtype, count);
  sk_twin::CheckCount(count, call);
  if (count == 0) return;
  const uint64_t e = sk_twin::DtypeSize(dtype);
  const uint64_t bytes = static_cast<uint64_t>(count) * e;
  uint8_t* d = sk_twin::Operand(dst, bytes, call, "dst");
  if (op == SK_TWIN_V_DUPLICATE) {
    for (uint64_t i = 0; i < bytes; i += e) std::memcpy(d + i, &scalar, e);
    return;
  }
  const uint8_t* a = sk_twin::Operand(src0, bytes, call, sk_twin::Binary(op) ? "src0" : "src");
  const uint8_t* b = sk_twin::Binary(op) ? sk_twin::Operand(src1, bytes, call, "src1") : nullptr;
  const bool scalar_op = sk_twin::WithScalar(op);
  if (sk_twin::DtypeIsFloat(dtype)) {
    const double s = scalar_op ? sk_twin::Scalar(dtype, scalar) : 0.0;
    for (uint64_t i = 0; i < bytes; i += e) {
      const double x = sk_twin::LoadF(dtype, a + i);
      const double y = b != nullptr ? sk_twin::LoadF(dtype, b + i) : s;
      sk_twin::StoreF(dtype, d + i, sk_twin::ApplyF(op, x, y));
    }
    return;
  }
  const int64_t s = scalar_op ? sk_twin::ScalarI(dtype, scalar) : 0;
  for (uint64_t i = 0; i < bytes; i += e) {
    const int64_t x = sk_twin::LoadI(dtype, a + i);
    const int64_t y = b != nullptr ? sk_twin::LoadI(dtype, b + i) : s;
    sk_twin::StoreI(dtype, d + i, sk_twin::ApplyI(op, x, y));
  }
}

void sk_twin_reduce(uint32_t op, uint32_t dtype, const SkTwinLocalRef* dst, const SkTwinLocalRef* src,
                    const SkTwinLocalRef* work, int64_t count, uint32_t cal_index) {
  const std::string call = std::string(sk_twin::OpName(op)) + "<" + sk_twin::DtypeName(dtype) +
                           ">(dst, src, sharedTmpBuffer, count " + std::to_string(count) +
                           (op != SK_TWIN_V_REDUCE_SUM ? std::string(", calIndex ") + (cal_index ? "true" : "false")
                                                        : std::string()) +
                           ")";
  sk_twin::CheckCount(count, call);
  if (count == 0) return;  // a NOP, as on Atlas A2/A3
  const uint64_t e = sk_twin::DtypeSize(dtype);
  const uint8_t* s = sk_twin::Operand(src, static_cast<uint64_t>(count) * e, call, "src");
  sk_twin::Operand(work, 0, call, "sharedTmpBuffer");
  sk_twin::CheckLocalAlign(*dst, static_cast<uint32_t>(e), call, "dst");
  const bool with_index = op != SK_TWIN_V_REDUCE_SUM && cal_index;
  uint8_t* d = sk_twin::LocalAccess(*dst, 0, (with_index ? 2 : 1) * e, call, "dst");
  if (op == SK_TWIN_V_REDUCE_SUM) {
    std::vector<double> v(static_cast<size_t>(count));
    for (int64_t i = 0; i < count; ++i) v[i] = sk_twin::LoadF(dtype, s + i * e);
    sk_twin::StoreF(dtype, d, sk_twin::TreeSum(dtype, std::move(v)));
    // The sum also lands in the core's ACC_VAL register (GetAccVal), low bits first.
    uint64_t bits = 0;
    std::memcpy(&bits, d, e);
    sk_twin::CurrentWorker("ReduceSum").ascendc.acc_val = bits;
    return;
  }
  // Max/Min: the first extreme wins ties; a NaN wins over everything.
  int64_t best = 0;
  double bv = sk_twin::LoadF(dtype, s);
  for (int64_t i = 1; i < count && !std::isnan(bv); ++i) {
    const double x = sk_twin::LoadF(dtype, s + i * e);
    if (std::isnan(x) || (op == SK_TWIN_V_REDUCE_MAX ? x > bv : x < bv)) {
      bv = x;
      best = i;
    }
  }
  std::memcpy(d, s + best * e, e);
  if (with_index) {
    // The index is stored as an integer in the element's bits.
    const uint64_t idx = static_cast<uint64_t>(best);
    std::memcpy(d + e, &idx, e);
  }
}

void sk_twin_cast(uint32_t dst_dtype, uint32_t src_dtype, uint32_t round_mode, const SkTwinLocalRef* dst,
                  const SkTwinLocalRef* src, int64_t count) {
  const std::string call = std::string("Cast<") + sk_twin::DtypeName(dst_dtype) + ", " +
                           sk_twin::DtypeName(src_dtype) + ">(" + sk_twin::RoundName(round_mode) + ", count " +
                           std::to_string(count) + ")";
  sk_twin::CheckCount(count, call);
  if (round_mode > 6) FailRule(call, "unknown RoundMode " + std::to_string(round_mode), "use CAST_NONE..CAST_ODD");
  if (count == 0) return;
  const uint64_t de = sk_twin::DtypeSize(dst_dtype), se = sk_twin::DtypeSize(src_dtype);
  uint8_t* d = sk_twin::Operand(dst, count * de, call, "dst");
  const uint8_t* s = sk_twin::Operand(src, count * se, call, "src");
  const bool sf = sk_twin::DtypeIsFloat(src_dtype);
  // Read everything first: dst and src may be the same buffer.
  std::vector<double> fv;
  std::vector<int64_t> iv;
  for (int64_t i = 0; i < count; ++i) {
    if (sf) fv.push_back(sk_twin::LoadF(src_dtype, s + i * se));
    else iv.push_back(sk_twin::LoadI(src_dtype, s + i * se));
  }
  if (dst_dtype == SK_TWIN_DT_HALF && src_dtype == SK_TWIN_DT_I32) {  // scaled by DEQSCALE, roundMode unused
    const double scale = sk_twin::DeqScale(call);
    for (int64_t i = 0; i < count; ++i) sk_twin::StoreF(dst_dtype, d + i * de, static_cast<double>(iv[i]) * scale);
    return;
  }
  for (int64_t i = 0; i < count; ++i) {
    sk_twin::CastElem(dst_dtype, src_dtype, round_mode, sf ? fv[i] : 0.0, sf ? 0 : iv[i], d + i * de);
  }
}

void sk_twin_compare(uint32_t dtype, uint32_t cmp_mode, const SkTwinLocalRef* dst, const SkTwinLocalRef* src0,
                     const SkTwinLocalRef* src1, uint64_t scalar, int64_t count) {
  const std::string call = std::string(src1 != nullptr ? "Compare<" : "Compares<") + sk_twin::DtypeName(dtype) +
                           ">(" + sk_twin::CmpName(cmp_mode) + ", count " + std::to_string(count) + ")";
  sk_twin::CheckCount(count, call);
  if (cmp_mode > 5) FailRule(call, "unknown CMPMODE " + std::to_string(cmp_mode), "use LT, GT, EQ, LE, GE, NE");
  const uint64_t e = sk_twin::DtypeSize(dtype);
  const uint64_t bytes = static_cast<uint64_t>(count) * e;
  if (src1 != nullptr && bytes % sk_twin::kRepeatBytes != 0) {
    FailRule(call, "count " + std::to_string(count) + " x " + std::to_string(e) + " bytes = " +
                       std::to_string(bytes) + " bytes is not a multiple of 256",
             "Compare works on whole 256-byte repeats: count must be a multiple of " +
                 std::to_string(sk_twin::kRepeatBytes / e) + " for " + sk_twin::DtypeName(dtype));
  }
  if (dtype == SK_TWIN_DT_I32 && cmp_mode != 2) {
    FailRule(call, "int32_t operands support only CMPMODE::EQ on Atlas A2/A3", "compare int32_t with EQ, or cast");
  }
  if (count == 0) return;
  uint8_t* d = sk_twin::Operand(dst, (static_cast<uint64_t>(count) + 7) / 8, call, "dst");
  const uint8_t* a = sk_twin::Operand(src0, bytes, call, "src0");
  const uint8_t* b = src1 != nullptr ? sk_twin::Operand(src1, bytes, call, "src1") : nullptr;
  const bool fl = sk_twin::DtypeIsFloat(dtype);
  const double sv = fl ? sk_twin::Scalar(dtype, scalar) : static_cast<double>(sk_twin::ScalarI(dtype, scalar));
  std::vector<uint8_t> bits((static_cast<size_t>(count) + 7) / 8, 0);
  for (int64_t i = 0; i < count; ++i) {
    const double x = fl ? sk_twin::LoadF(dtype, a + i * e) : static_cast<double>(sk_twin::LoadI(dtype, a + i * e));
    const double y = b == nullptr ? sv
                     : fl       ? sk_twin::LoadF(dtype, b + i * e)
                                : static_cast<double>(sk_twin::LoadI(dtype, b + i * e));
    if (sk_twin::CompareValues(cmp_mode, x, y)) bits[i / 8] |= static_cast<uint8_t>(1u << (i % 8));
  }
  std::memcpy(d, bits.data(), bits.size());
}

void sk_twin_select(uint32_t dtype, uint32_t sel_mode, const SkTwinLocalRef* dst, const SkTwinLocalRef* mask,
                    const SkTwinLocalRef* src0, const SkTwinLocalRef* src1, uint64_t scalar, int64_t count) {
  static const char* const kModes[] = {"VSEL_CMPMASK_SPR", "VSEL_TENSOR_SCALAR_MODE", "VSEL_TENSOR_TENSOR_MODE"};
  const std::string call = std::string("Select<") + sk_twin::DtypeName(dtype) + ">(" +
                           (sel_mode < 3 ? kModes[sel_mode] : "?") + ", count " + std::to_string(count) + ")";
  sk_twin::CheckCount(count, call);
  if (sel_mode > 2) FailRule(call, "unknown SELMODE " + std::to_string(sel_mode), "use SELMODE values 0..2");
  if (sel_mode == 1 && src1 != nullptr) {
    FailRule(call, "src1 is a tensor", "VSEL_TENSOR_SCALAR_MODE takes a scalar src1; use mode 0 or 2 for tensors");
  }
  if (sel_mode != 1 && src1 == nullptr) {
    FailRule(call, "src1 is a scalar", "a scalar src1 needs SELMODE::VSEL_TENSOR_SCALAR_MODE");
  }
  if (count == 0) return;
  const uint64_t e = sk_twin::DtypeSize(dtype);
  const uint64_t bytes = static_cast<uint64_t>(count) * e;
  const uint64_t per = sk_twin::kRepeatBytes / e;
  const uint64_t mask_bits = sel_mode == 0 ? std::min<uint64_t>(per, count) : static_cast<uint64_t>(count);
  const uint8_t* m = sk_twin::Operand(mask, (mask_bits + 7) / 8, call, "selMask");
  std::vector<uint8_t> mbits(m, m + (mask_bits + 7) / 8);
  uint8_t* d = sk_twin::Operand(dst, bytes, call, "dst");
  const uint8_t* a = sk_twin::Operand(src0, bytes, call, "src0");
  const uint8_t* b = src1 != nullptr ? sk_twin::Operand(src1, bytes, call, "src1") : nullptr;
  for (int64_t i = 0; i < count; ++i) {
    const uint64_t bit = sel_mode == 0 ? static_cast<uint64_t>(i) % per : static_cast<uint64_t>(i);
    const bool take0 = (mbits[bit / 8] >> (bit % 8)) & 1;
    if (take0) {
      std::memmove(d + i * e, a + i * e, e);
    } else if (b != nullptr) {
      std::memmove(d + i * e, b + i * e, e);
    } else {
      std::memcpy(d + i * e, &scalar, e);
    }
  }
}

}  // extern "C"
