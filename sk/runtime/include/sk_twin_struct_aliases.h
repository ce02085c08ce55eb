// sk_twin_struct_aliases.h - other names the toolkit gives the twin's
// parameter structs (basic_api/kernel_struct_mm.h spells LoadData2DParams
// also as LoadData2dParams; kernels use both).
#ifndef SK_TWIN_STRUCT_ALIASES_H_
#define SK_TWIN_STRUCT_ALIASES_H_

namespace AscendC {
using LoadData2dParams = LoadData2DParams;
}  // namespace AscendC

#endif  // SK_TWIN_STRUCT_ALIASES_H_
