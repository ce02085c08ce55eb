// sk_twin_matmul_config.h - the Matmul template configuration (MatmulConfig
// and the functions that build it), written from the public Ascend C
// documentation (MatmulConfig, GetNormalConfig, GetMDLConfig,
// GetSpecialMDLConfig, GetBasicConfig, GetMMConfig).
//
// MatmulConfig's fields are in the documented order, so the positional
// aggregate initialisers CANN's kernels write ({false, false, true, 0, ...})
// set the same fields as on the device; fields left out keep the documented
// defaults. Most fields only choose how the device schedules the same
// product (templates, preloads, buffer reuse); the fields that change what a
// Matmul computes are checked by the Matmul class (sk_twin_matmul.h): the
// twin implements enableSetBias and iterateOrder under OUTER_PRODUCT, and
// refuses enableRelu, isPartialOutput, intraBlockPartSum,
// isEnableChannelSplit and isNBatch at compile time.
#ifndef SK_TWIN_MATMUL_CONFIG_H_
#define SK_TWIN_MATMUL_CONFIG_H_

#include <cstdint>

// CANN names the operands' layout unqualified (MatmulType<..., CubeFormat::NZ, ...>)
// in kernels that import only a few AscendC names: it lives at global scope.
enum class CubeFormat : int32_t { ND = 0, NZ, ZN, ZZ, NN, ND_ALIGN, SCALAR, VECTOR };

namespace AscendC {
enum class LayoutMode : uint8_t { NONE = 0, BSNGD, SBNGD, BNGS1S2, NORMAL };
enum class IterateOrder : uint8_t { ORDER_M = 0, ORDER_N, UNDEF };
}  // namespace AscendC

// Kernels that import only a few AscendC names write MatmulConfig, CFG_MDL,
// BatchMode, GetMMConfig bare: they are global names, and AscendC:: names them.
enum class ScheduleType : int32_t { INNER_PRODUCT = 0, OUTER_PRODUCT };
enum class BatchMode : uint8_t { NONE = 0, BATCH_LESS_THAN_L1, BATCH_LARGE_THAN_L1, SINGLE_LARGE_THAN_L1 };
enum class BatchOutMode : uint8_t { SINGLE_BATCH = 0, MULTI_BATCH, DYNAMIC };
// One bit per Iterate form (the twin reads none of them).
enum IterateMode : uint8_t {
  ITERATE_MODE_NORMAL = 0b00000001,
  ITERATE_MODE_ALL = 0b00000010,
  ITERATE_MODE_BATCH = 0b00000100,
  ITERATE_MODE_N_BATCH = 0b00001000,
  ITERATE_MODE_DEFAULT = 0b11111111,
};
enum class MatmulConfigMode : uint8_t { CONFIG_NORM = 0, CONFIG_MDL, CONFIG_SPECIALMDL, CONFIG_IBSHARE };

struct MatmulConfig {
  bool doNorm = true;  // no template named: Norm
  bool doBasicBlock = false;
  bool doMultiDataLoad = false;
  uint32_t basicM = 0;
  uint32_t basicN = 0;
  uint32_t basicK = 0;
  bool intrinsicsCheck = false;
  bool isNBatch = false;
  bool enVecND2NZ = false;
  bool doSpecialBasicBlock = false;
  uint32_t doMTE2Preload = 0;
  uint32_t singleCoreM = 0;
  uint32_t singleCoreN = 0;
  uint32_t singleCoreK = 0;
  uint32_t stepM = 0;
  uint32_t stepN = 0;
  uint32_t baseMN = 0;
  uint32_t singleCoreMN = 0;
  bool enUnitFlag = true;
  bool isPerTensor = false;
  bool hasAntiQuantOffset = false;
  bool doIBShareNorm = false;
  bool doSpecialMDL = false;
  bool enableInit = true;
  BatchMode batchMode = BatchMode::NONE;
  bool enableEnd = true;
  bool enableGetTensorC = true;
  bool enableSetOrgShape = true;
  bool enableSetBias = true;
  bool enableSetTail = true;
  bool enableQuantVector = true;
  bool enableSetDefineData = true;
  uint8_t iterateMode = ITERATE_MODE_DEFAULT;
  bool enableReuse = true;
  bool enableUBReuse = false;
  bool enableL1CacheUB = false;
  bool intraBlockPartSum = false;
  AscendC::IterateOrder iterateOrder = AscendC::IterateOrder::UNDEF;
  ScheduleType scheduleType = ScheduleType::INNER_PRODUCT;
  bool enableDoubleCache = false;
  bool isBiasBatch = true;
  bool enableStaticPadZeros = false;
  bool isPartialOutput = false;
  bool enableMixDualMaster = false;
  bool isA2B2Shared = false;
  bool isEnableChannelSplit = false;
  bool enableKdimReorderLoad = false;
  bool isCO1Shared = false;
  uint32_t sharedCO1BufferSize = 0;
  BatchOutMode bmmOutMode = BatchOutMode::SINGLE_BATCH;
  bool enableL1BankConflictOptimise = false;
  bool enableRelu = false;
};

static inline constexpr MatmulConfig GetNormalConfig(const bool intrinsicsLimit = false, const bool batchLoop = false,
                                                     const bool isVecND2NZ = false,
                                                     const BatchMode bmmMode = BatchMode::BATCH_LESS_THAN_L1,
                                                     const bool isMsgReuse = true,
                                                     const AscendC::IterateOrder iterateOrder = AscendC::IterateOrder::UNDEF,
                                                     const ScheduleType scheduleType = ScheduleType::INNER_PRODUCT,
                                                     const bool enUnitFlag = true,
                                                     const bool enableMixDualMaster = false,
                                                     const BatchOutMode bmmOutMode = BatchOutMode::SINGLE_BATCH) {
  MatmulConfig c{};
  c.doNorm = true;
  c.intrinsicsCheck = intrinsicsLimit;
  c.isNBatch = batchLoop;
  c.enVecND2NZ = isVecND2NZ;
  c.batchMode = bmmMode;
  c.enableReuse = isMsgReuse;
  c.iterateOrder = iterateOrder;
  c.scheduleType = scheduleType;
  c.enUnitFlag = enUnitFlag;
  c.enableMixDualMaster = enableMixDualMaster;
  c.bmmOutMode = bmmOutMode;
  return c;
}

static inline constexpr MatmulConfig GetMDLConfig(const bool intrinsicsLimit = false, const bool batchLoop = false,
                                                  const uint32_t doMTE2Preload = 0, const bool isVecND2NZ = false,
                                                  bool isPerTensor = false, bool hasAntiQuantOffset = false,
                                                  const bool enUnitFlag = false, const bool isMsgReuse = true,
                                                  const bool enableUBReuse = true, const bool enableL1CacheUB = false,
                                                  const bool enableMixDualMaster = false,
                                                  const bool enableKdimReorderLoad = false) {
  MatmulConfig c{};
  c.doNorm = false;
  c.doMultiDataLoad = true;
  c.intrinsicsCheck = intrinsicsLimit;
  c.isNBatch = batchLoop;
  c.doMTE2Preload = doMTE2Preload;
  c.enVecND2NZ = isVecND2NZ;
  c.isPerTensor = isPerTensor;
  c.hasAntiQuantOffset = hasAntiQuantOffset;
  c.enUnitFlag = enUnitFlag;
  c.enableReuse = isMsgReuse;
  c.enableUBReuse = enableUBReuse;
  c.enableL1CacheUB = enableL1CacheUB;
  c.enableMixDualMaster = enableMixDualMaster;
  c.enableKdimReorderLoad = enableKdimReorderLoad;
  return c;
}

static inline constexpr MatmulConfig GetSpecialMDLConfig(const bool intrinsicsLimit = false,
                                                         const bool batchLoop = false,
                                                         const uint32_t doMTE2Preload = 0,
                                                         const bool isVecND2NZ = false, bool isPerTensor = false,
                                                         bool hasAntiQuantOffset = false) {
  MatmulConfig c{};
  c.doNorm = false;
  c.doSpecialMDL = true;
  c.intrinsicsCheck = intrinsicsLimit;
  c.isNBatch = batchLoop;
  c.doMTE2Preload = doMTE2Preload;
  c.enVecND2NZ = isVecND2NZ;
  c.isPerTensor = isPerTensor;
  c.hasAntiQuantOffset = hasAntiQuantOffset;
  c.enUnitFlag = false;
  return c;
}

static inline constexpr MatmulConfig GetBasicConfig(const uint32_t basicM, const uint32_t basicN,
                                                    const uint32_t basicK, const bool intrinsicsLimit = false,
                                                    const bool batchLoop = false,
                                                    const BatchMode bmmMode = BatchMode::BATCH_LESS_THAN_L1) {
  MatmulConfig c{};
  c.doNorm = false;
  c.doBasicBlock = true;
  c.basicM = basicM;
  c.basicN = basicN;
  c.basicK = basicK;
  c.intrinsicsCheck = intrinsicsLimit;
  c.isNBatch = batchLoop;
  c.batchMode = bmmMode;
  return c;
}

static inline constexpr MatmulConfig GetIBShareNormConfig(const bool intrinsicsLimit = false,
                                                          const bool batchLoop = false,
                                                          const bool isVecND2NZ = false,
                                                          const BatchMode bmmMode = BatchMode::BATCH_LESS_THAN_L1,
                                                          const bool isDoubleCache = false,
                                                          const bool enUnitFlag = true) {
  MatmulConfig c{};
  c.doNorm = false;
  c.doIBShareNorm = true;
  c.intrinsicsCheck = intrinsicsLimit;
  c.isNBatch = batchLoop;
  c.enVecND2NZ = isVecND2NZ;
  c.batchMode = bmmMode;
  c.enableDoubleCache = isDoubleCache;
  c.enUnitFlag = enUnitFlag;
  return c;
}

constexpr MatmulConfig CFG_NORM = GetNormalConfig();
constexpr MatmulConfig CFG_MDL = GetMDLConfig();
constexpr MatmulConfig CFG_IBSHARE_NORM = GetIBShareNormConfig();
// The block sizes 0: the BasicBlock template with the tiling's base block.
constexpr MatmulConfig MM_CFG_BB = GetBasicConfig(0, 0, 0);
// The MatmulConfig of a Matmul's MM_CFG argument (kernels test its fields in `if constexpr`).
constexpr MatmulConfig ToMatmulConfig(const MatmulConfig& cfg) { return cfg; }

// GetMMConfig's second-level configs, each field as in MatmulConfig.
struct MatmulShapeParams {
  uint32_t singleCoreM = 0;
  uint32_t singleCoreN = 0;
  uint32_t singleCoreK = 0;
  uint32_t basicM = 0;
  uint32_t basicN = 0;
  uint32_t basicK = 0;
};
struct MatmulQuantParams {
  bool isPerTensor = false;
  bool hasAntiQuantOffset = false;
};
struct MatmulBatchParams {
  bool isNBatch = false;
  BatchMode batchMode = BatchMode::BATCH_LESS_THAN_L1;
  bool isBiasBatch = true;
  BatchOutMode bmmOutMode = BatchOutMode::SINGLE_BATCH;
};
struct MatmulFuncParams {
  bool intrinsicsLimit = false;
  bool enVecND2NZ = false;
  bool enableDoubleCache = false;
  bool enableL1CacheUB = false;
  uint32_t doMTE2Preload = 0;
  AscendC::IterateOrder iterateOrder = AscendC::IterateOrder::UNDEF;
  ScheduleType scheduleType = ScheduleType::INNER_PRODUCT;
  bool enableReuse = true;
  bool enableUBReuse = false;
  bool isPartialOutput = false;
  bool isA2B2Shared = false;
  bool isEnableChannelSplit = false;
  bool enableKdimReorderLoad = false;
  bool enableL1BankConflictOptimise = false;
};

namespace sk_twin_mm {
static inline constexpr void ApplyMMParams(MatmulConfig& c, const MatmulShapeParams& p) {
  c.singleCoreM = p.singleCoreM;
  c.singleCoreN = p.singleCoreN;
  c.singleCoreK = p.singleCoreK;
  c.basicM = p.basicM;
  c.basicN = p.basicN;
  c.basicK = p.basicK;
}
static inline constexpr void ApplyMMParams(MatmulConfig& c, const MatmulQuantParams& p) {
  c.isPerTensor = p.isPerTensor;
  c.hasAntiQuantOffset = p.hasAntiQuantOffset;
}
static inline constexpr void ApplyMMParams(MatmulConfig& c, const MatmulBatchParams& p) {
  c.isNBatch = p.isNBatch;
  c.batchMode = p.batchMode;
  c.isBiasBatch = p.isBiasBatch;
  c.bmmOutMode = p.bmmOutMode;
}
static inline constexpr void ApplyMMParams(MatmulConfig& c, const MatmulFuncParams& p) {
  c.intrinsicsCheck = p.intrinsicsLimit;
  c.enVecND2NZ = p.enVecND2NZ;
  c.enableDoubleCache = p.enableDoubleCache;
  c.enableL1CacheUB = p.enableL1CacheUB;
  c.doMTE2Preload = p.doMTE2Preload;
  c.iterateOrder = p.iterateOrder;
  c.scheduleType = p.scheduleType;
  c.enableReuse = p.enableReuse;
  c.enableUBReuse = p.enableUBReuse;
  c.isPartialOutput = p.isPartialOutput;
  c.isA2B2Shared = p.isA2B2Shared;
  c.isEnableChannelSplit = p.isEnableChannelSplit;
  c.enableKdimReorderLoad = p.enableKdimReorderLoad;
  c.enableL1BankConflictOptimise = p.enableL1BankConflictOptimise;
}
}  // namespace sk_twin_mm

// The template of configMode with the given second-level configs applied in order.
template <MatmulConfigMode configMode, typename... ArgTypes>
static inline constexpr MatmulConfig GetMMConfig(ArgTypes&&... args) {
  MatmulConfig c = configMode == MatmulConfigMode::CONFIG_MDL          ? GetMDLConfig()
                   : configMode == MatmulConfigMode::CONFIG_SPECIALMDL ? GetSpecialMDLConfig()
                   : configMode == MatmulConfigMode::CONFIG_IBSHARE    ? GetIBShareNormConfig()
                                                                       : GetNormalConfig();
  (sk_twin_mm::ApplyMMParams(c, args), ...);
  return c;
}

namespace AscendC {
using ::CubeFormat;
using ::ScheduleType;
using ::BatchMode;
using ::BatchOutMode;
using ::IterateMode;
using ::ITERATE_MODE_NORMAL;
using ::ITERATE_MODE_ALL;
using ::ITERATE_MODE_BATCH;
using ::ITERATE_MODE_N_BATCH;
using ::ITERATE_MODE_DEFAULT;
using ::MatmulConfigMode;
using ::MatmulConfig;
using ::GetNormalConfig;
using ::GetMDLConfig;
using ::GetSpecialMDLConfig;
using ::GetBasicConfig;
using ::GetIBShareNormConfig;
using ::CFG_NORM;
using ::CFG_MDL;
using ::CFG_IBSHARE_NORM;
using ::MM_CFG_BB;
using ::ToMatmulConfig;
using ::MatmulShapeParams;
using ::MatmulQuantParams;
using ::MatmulBatchParams;
using ::MatmulFuncParams;
using ::GetMMConfig;
}  // namespace AscendC

#endif  // SK_TWIN_MATMUL_CONFIG_H_
