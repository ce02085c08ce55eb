// Element access and arithmetic shared by the vector instructions
// (vector.cc: count forms; vector_ext.cc: mask/repeat forms and the rest of
// the vector surface). Defined in vector.cc.
#ifndef SK_TWIN_SRC_ELEM_H_
#define SK_TWIN_SRC_ELEM_H_

#include <cstdint>
#include <string>
#include <vector>

#include "sk_twin.h"
#include "sk_twin_half.h"

namespace sk_twin {

// The name of an SK_TWIN_V_* operation ("Add").
const char* OpName(uint32_t op);
// Checks an operand of `bytes` bytes (alive, inside its buffer, 32-byte aligned); its memory.
uint8_t* Operand(const SkTwinLocalRef* t, uint64_t bytes, const std::string& call, const char* role);

// The exact value of a floating-point element / integer element, widened.
double LoadF(uint32_t dt, const uint8_t* p);
int64_t LoadI(uint32_t dt, const uint8_t* p);
// Rounds v to the floating type dt with mode and stores it.
void StoreF(uint32_t dt, uint8_t* p, double v, sk_twin_fp::Round mode = sk_twin_fp::kRint);
// Stores the low bits (two's complement wrap).
void StoreI(uint32_t dt, uint8_t* p, int64_t v);
int64_t IntMin(uint32_t dt);
int64_t IntMax(uint32_t dt);
// A scalar passed as the bits of a T.
double Scalar(uint32_t dt, uint64_t bits);
int64_t ScalarI(uint32_t dt, uint64_t bits);
// The SK_TWIN_V_* operations on one element (b: second operand or scalar).
double ApplyF(uint32_t op, double a, double b);
int64_t ApplyI(uint32_t op, int64_t a, int64_t b);
// Rounds to an integral value with an AscendC::RoundMode value; the fp mode of one.
double RoundIntegral(double v, uint32_t mode);
sk_twin_fp::Round FpMode(uint32_t mode);
const char* RoundName(uint32_t mode);
// Sum in T's precision in the hardware's order (see vector.cc).
double TreeSum(uint32_t dt, std::vector<double> v);
// CMPMODE on two values, and its name.
bool CompareValues(uint32_t mode, double a, double b);
const char* CmpName(uint32_t mode);
void CheckCount(int64_t count, const std::string& call);
// The DEQSCALE register that Cast int32_t -> half multiplies by (SetDeqScale);
// fails the call when it was never set.
double DeqScale(const std::string& call);
// One element of a Cast: fv (floating source) or iv (integer source) to
// dst_dtype at out, with an AscendC::RoundMode value.
void CastElem(uint32_t dst_dtype, uint32_t src_dtype, uint32_t round_mode, double fv, int64_t iv, uint8_t* out);

}  // namespace sk_twin

#endif  // SK_TWIN_SRC_ELEM_H_
