// matmul_test_util.h - the one-core TCubeTiling the Matmul tests (matmul_test.cc,
// matmul_config_test.cc) build their cases from.
#ifndef SK_RUNTIME_TESTS_MATMUL_TEST_UTIL_H_
#define SK_RUNTIME_TESTS_MATMUL_TEST_UTIL_H_

#include <cstring>

#include "lib/matmul_intf.h"

namespace matmul_test {

// M x N x K on one core, base blocks baseM x baseN (0: the whole extent), iterateOrder `order`.
inline TCubeTiling Tiling(int m, int n, int k, int baseM = 0, int baseN = 0, int order = 0) {
  TCubeTiling t;
  std::memset(&t, 0, sizeof t);
  t.usedCoreNum = 1;
  t.M = t.singleCoreM = m;
  t.N = t.singleCoreN = n;
  t.Ka = t.Kb = t.singleCoreK = k;
  t.baseM = baseM;
  t.baseN = baseN;
  t.iterateOrder = order;
  return t;
}

}  // namespace matmul_test

#endif  // SK_RUNTIME_TESTS_MATMUL_TEST_UTIL_H_
