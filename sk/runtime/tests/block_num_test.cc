// GetBlockNum per translation unit: SK-mode sub-kernels see their static
// (or dynamic) block num, the SK entry and ordinary kernels the launch's.
#include <vector>

#include "kernel_operator.h"
#include "twin_test.h"

extern "C" void block_num_static5(uint64_t args_offset);
extern "C" void block_num_static7(uint64_t args_offset);
extern "C" void block_num_dynamic(uint64_t args_offset);

namespace {

void SkEntry() {
  GM_ADDR* param_base = (GM_ADDR*)get_para_base();
  reinterpret_cast<int64_t*>(param_base[4])[sk_twin_worker_index()] = AscendC::GetBlockNum();
  block_num_static5(1);
  block_num_static7(2);
  g_super_kernel_dynamic_block_num = 3;
  block_num_dynamic(3);
}

TWIN_TEST(static_block_num_is_per_translation_unit) {
  std::vector<int64_t> five(8, 0), seven(8, 0), dyn(8, 0), entry(8, 0);
  twin_test::Run run;
  twin_test::Launch(&run, "block_num", SkEntry, {2, 1, 2},
                    {0, twin_test::Addr(five.data()), twin_test::Addr(seven.data()), twin_test::Addr(dyn.data()),
                     twin_test::Addr(entry.data())});
  CHECK_OK(run);
  for (int w = 0; w < 6; ++w) {
    CHECK_EQ(five[w], int64_t{5});
    CHECK_EQ(seven[w], int64_t{7});
    CHECK_EQ(dyn[w], int64_t{3});
    CHECK_EQ(entry[w], int64_t{2});
  }
}

}  // namespace

int main(int argc, char** argv) { return twin_test::Main(argc, argv); }
