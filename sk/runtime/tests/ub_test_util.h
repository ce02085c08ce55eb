// ub_test_util.h - helpers of the vector tests (vector_ext_test.cc,
// vector_ext2_test.cc): run a body on one AIV with a UB buffer filled from
// and copied back to a byte vector, read and write typed values in it, and
// run a body that must fail the launch.
#ifndef SK_RUNTIME_TESTS_UB_TEST_UTIL_H_
#define SK_RUNTIME_TESTS_UB_TEST_UTIL_H_

#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "ascendc_util.h"

namespace ub_test {

using namespace AscendC;
using ascendc_test::RunAiv;

// Runs body with one 16 KiB VECCALC buffer; `io` (bytes) is copied into the
// buffer first and back out afterwards.
inline void WithUb(std::vector<uint8_t>* io, const std::function<void(LocalTensor<uint8_t>&)>& body) {
  twin_test::Run run;
  RunAiv(&run, "vec_ext", [&] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, static_cast<uint32_t>(io->size()));
    GlobalTensor<uint8_t> g;
    g.SetGlobalBuffer(io->data(), io->size());
    LocalTensor<uint8_t> ub = buf.Get<uint8_t>();
    DataCopy(ub, g, static_cast<uint32_t>(io->size()));
    body(ub);
    DataCopy(g, ub, static_cast<uint32_t>(io->size()));
  });
  CHECK_OK(run);
}

template <typename T>
T At(const std::vector<uint8_t>& b, size_t byte) {
  T v;
  std::memcpy(&v, b.data() + byte, sizeof(T));
  return v;
}
template <typename T>
void Put(std::vector<uint8_t>* b, size_t byte, T v) {
  std::memcpy(b->data() + byte, &v, sizeof(T));
}

// The byte of lane i of repeat r (element size e, strides in 32-byte blocks).
inline size_t LaneByte(size_t r, size_t i, size_t e, size_t blk, size_t rep) {
  const size_t per_block = 32 / e;
  return r * rep * 32 + (i / per_block) * blk * 32 + (i % per_block) * e;
}

inline std::string Violation(const char* kernel, std::function<void(LocalTensor<uint8_t>&)> body) {
  twin_test::Run run;
  RunAiv(&run, kernel, [&] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 4096);
    LocalTensor<uint8_t> ub = buf.Get<uint8_t>();
    body(ub);
  });
  CHECK_EQ(run.status, SK_TWIN_KERNEL_ERROR);
  CHECK_CONTAINS(run.error(), std::string("kernel '") + kernel + "'");
  return run.error();
}

}  // namespace ub_test

#endif  // SK_RUNTIME_TESTS_UB_TEST_UTIL_H_
