// platform/platform_infos_def.h on the CPU twin. In CANN this header declares
// the host-side platform description (fe::PlatFormInfos, fe::OptionalInfos)
// that tiling functions read; kernels include it only for those names. The
// twin's kernels get no platform database: the classes are declared, never
// defined, so a kernel can name them (pointers, references) but any use of
// their members fails to compile.
#ifndef SK_TWIN_PLATFORM_PLATFORM_INFOS_DEF_H_
#define SK_TWIN_PLATFORM_PLATFORM_INFOS_DEF_H_

namespace fe {
class PlatFormInfos;
class OptionalInfos;
}  // namespace fe

#endif  // SK_TWIN_PLATFORM_PLATFORM_INFOS_DEF_H_
