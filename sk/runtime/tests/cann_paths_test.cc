// The CANN include paths kernels name for host-side facts: acl/acl.h gives
// the error-code type and its success value, platform/platform_infos_def.h
// the platform classes as incomplete types (a kernel may hold a pointer);
// LoadData2dParams is LoadData2DParams.
#include <type_traits>

#include "acl/acl.h"
#include "kernel_operator.h"
#include "platform/platform_infos_def.h"
#include "twin_test.h"

namespace {

struct HoldsPlatform {
  fe::PlatFormInfos* infos = nullptr;
  fe::OptionalInfos* optional = nullptr;
};

TWIN_TEST(acl_gives_its_error_code_type) {
  static_assert(std::is_same<aclError, int>::value, "aclError is an int");
  aclError e = ACL_SUCCESS;
  CHECK_EQ(e, 0);
}

TWIN_TEST(platform_infos_are_names_only) {
  HoldsPlatform h;
  CHECK(h.infos == nullptr);
  CHECK(h.optional == nullptr);
}

TWIN_TEST(load_data_2d_params_has_both_spellings) {
  static_assert(std::is_same<AscendC::LoadData2dParams, AscendC::LoadData2DParams>::value, "one struct");
  AscendC::LoadData2dParams p(0, 3, 1, 0, 0, false, 0);
  CHECK_EQ(p.repeatTimes, 3);
  CHECK_EQ(p.srcStride, 1);
}

}  // namespace

int main(int argc, char** argv) { return twin_test::Main(argc, argv); }
