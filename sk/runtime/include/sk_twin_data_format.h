// AscendC::DataFormat: the layout a shape describes (the type of ShapeInfo's
// dataFormat field in the Ascend C docs; kernels also pass it around on its own).
#ifndef SK_TWIN_DATA_FORMAT_H_
#define SK_TWIN_DATA_FORMAT_H_

#include <cstdint>

namespace AscendC {
enum class DataFormat : uint8_t {
  ND = 0,
  NZ,
  NCHW,
  NC1HWC0,
  NHWC,
};
}  // namespace AscendC

#endif  // SK_TWIN_DATA_FORMAT_H_
