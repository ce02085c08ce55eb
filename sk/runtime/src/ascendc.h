// Shared by ascendc.cc (buffers, tensors, DataCopy) and vector.cc (vector
// instructions): element types and the checked access to a LocalTensor.
#ifndef SK_TWIN_SRC_ASCENDC_H_
#define SK_TWIN_SRC_ASCENDC_H_

#include <cstdint>
#include <string>

#include "core.h"

namespace sk_twin {

constexpr uint32_t kUbBlock = 32;    // the UB's data block
constexpr uint32_t kRepeatBytes = 256;  // one repeat of a vector instruction

uint32_t DtypeSize(uint32_t dtype);
const char* DtypeName(uint32_t dtype);
bool DtypeIsFloat(uint32_t dtype);
bool DtypeIsSigned(uint32_t dtype);

// Host memory for bytes [off, off+bytes) of tensor t, after checking that t
// is a live tensor of this worker (allocated, not freed, its TPipe alive) and
// that the range lies in its buffer. role names the operand ("dst", "src0").
uint8_t* LocalAccess(const SkTwinLocalRef& t, uint64_t off, uint64_t bytes, const std::string& call,
                     const char* role);
// Fails unless the tensor's UB address is a multiple of `align` bytes.
void CheckLocalAlign(const SkTwinLocalRef& t, uint32_t align, const std::string& call, const char* role);

std::string Num(uint64_t v);

// The cube memories (core.h LocalMem): their names and sizes, a worker's arena of one, and the memory a
// tensor's buffer lives in (kMemCount for a tensor never allocated).
const char* MemName(uint32_t mem);
uint64_t MemBytes(uint32_t mem);
uint8_t* CubeArena(Worker& w, uint32_t mem);
uint32_t LocalMemOf(const SkTwinLocalRef& t);

// Writes len bytes of UB to GM: a plain copy, or, after SetAtomicAdd/Max/Min,
// an element-wise accumulation under one lock (atomic.cc).
void StoreToGm(uint8_t* gm, const uint8_t* ub, uint64_t len, uint32_t dtype, const std::string& call);

}  // namespace sk_twin

#endif  // SK_TWIN_SRC_ASCENDC_H_
