// sk_twin_adv_tiling.h - the tiling structs of the high-level APIs the twin
// implements, as the kernel reads them from the tiling buffer (plain int32
// fields in the order of the host-side definition, so that a tiling blob
// written by the host tiling function reads the same here). Included by
// kernel_tiling/kernel_tiling.h and sk_twin_matmul.h.
#ifndef SK_TWIN_ADV_TILING_H_
#define SK_TWIN_ADV_TILING_H_

#include <cstdint>

// The Matmul tiling (Ascend C TCubeTiling): shapes M/N/Ka/Kb of the whole
// problem, the single-core shapes, the base block and the buffer settings
// the twin reads but does not need.
struct TCubeTiling {
  int32_t usedCoreNum;
  int32_t M;
  int32_t N;
  int32_t Ka;
  int32_t Kb;
  int32_t singleCoreM;
  int32_t singleCoreN;
  int32_t singleCoreK;
  int32_t baseM;
  int32_t baseN;
  int32_t baseK;
  int32_t depthA1;
  int32_t depthB1;
  int32_t stepM;
  int32_t stepN;
  int32_t isBias;
  int32_t transLength;
  int32_t iterateOrder;
  int32_t shareMode;
  int32_t shareL1Size;
  int32_t shareL0CSize;
  int32_t shareUbSize;
  int32_t batchM;
  int32_t batchN;
  int32_t singleBatchM;
  int32_t singleBatchN;
  int32_t stepKa;
  int32_t stepKb;
  int32_t depthAL1CacheUB;
  int32_t depthBL1CacheUB;
  int32_t dbL0A;
  int32_t dbL0B;
  int32_t dbL0C;
  int32_t ALayoutInfoB;
  int32_t ALayoutInfoS;
  int32_t ALayoutInfoN;
  int32_t ALayoutInfoG;
  int32_t ALayoutInfoD;
  int32_t BLayoutInfoB;
  int32_t BLayoutInfoS;
  int32_t BLayoutInfoN;
  int32_t BLayoutInfoG;
  int32_t BLayoutInfoD;
  int32_t CLayoutInfoB;
  int32_t CLayoutInfoS1;
  int32_t CLayoutInfoN;
  int32_t CLayoutInfoG;
  int32_t CLayoutInfoS2;
  int32_t BatchNum;
  int32_t mxTypePara;
};
static_assert(sizeof(TCubeTiling) == 200, "TCubeTiling is 50 int32 fields");

// The SoftMax family's tiling (SoftMaxTilingFunc on the host): shapes of the source, the max/sum outputs, one split,
// its reduction and the tail, all uint32_t. The twin does not implement SoftMax; kernels and host tilings that carry
// the struct (TILING_DATA_FIELD_DEF_STRUCT(SoftMaxTiling, ...)) read it at the host layout.
struct SoftMaxTiling {
  uint32_t srcM = 0, srcK = 0, srcSize = 0, outMaxM = 0;
  uint32_t outMaxK = 0, outMaxSize = 0, splitM = 0, splitK = 0;
  uint32_t splitSize = 0, reduceM = 0, reduceK = 0, reduceSize = 0;
  uint32_t rangeM = 0, tailM = 0, tailSplitSize = 0, tailReduceSize = 0;
};
static_assert(sizeof(SoftMaxTiling) == 64, "SoftMaxTiling is 16 uint32 fields");

// LayerNorm's tiling for the separate mean/rstd outputs (GetLayerNormNDTilingInfo on the host), at the host layout.
struct LayerNormSeparateTiling {
  uint32_t aLength = 0, rLength = 0, halfAddRepeatTimes = 0, rHeadLength = 0;
  float k2Rec = 0, k2RRec = 0;
  uint32_t inputXSize = 0, meanVarSize = 0, numberOfTmpBuf = 0, varianceTmpTensorPos = 0;
  uint32_t varianceTmpTensorSize = 0, tmpBufSize = 0, oneTmpSize = 0, firstTmpStartPos = 0;
  uint32_t secondTmpStartPos = 0, thirdTmpStartPos = 0, loopRound = 0, inputRoundSize = 0;
  uint32_t inputTailSize = 0, inputTailPos = 0, meanVarRoundSize = 0, meanVarTailSize = 0;
  uint32_t meanVarTailPos = 0, arCurLength = 0, aCurLength = 0;
  float rValueBack = 0;
};
static_assert(sizeof(LayerNormSeparateTiling) == 104, "LayerNormSeparateTiling is 26 four-byte fields");

// TopK's tiling (TopKTilingFunc on the host), at the host layout. The twin's TopK reads only its TopKInfo and k
// (sk_twin_topk.h); the struct travels in tiling data (TILING_DATA_FIELD_DEF_STRUCT(TopkTiling, ...)).
struct TopkTiling {
  int32_t tmpLocalSize = 0, allDataSize = 0, innerDataSize = 0;
  uint32_t sortRepeat = 0;
  int32_t mrgSortRepeat = 0, kAlignFourBytes = 0, kAlignTwoBytes = 0, maskOffset = 0;
  int32_t maskVreducev2FourBytes = 0, maskVreducev2TwoBytes = 0;
  int32_t mrgSortSrc1offset = 0, mrgSortSrc2offset = 0, mrgSortSrc3offset = 0, mrgSortTwoQueueSrc1Offset = 0;
  int32_t mrgFourQueueTailPara1 = 0, mrgFourQueueTailPara2 = 0, srcIndexOffset = 0;
  uint32_t copyUbToUbBlockCount = 0;
  int32_t topkMrgSrc1MaskSizeOffset = 0, topkNSmallSrcIndexOffset = 0;
  uint32_t vreduceValMask0 = 0, vreduceValMask1 = 0, vreduceIdxMask0 = 0, vreduceIdxMask1 = 0;
  uint16_t vreducehalfValMask0 = 0, vreducehalfValMask1 = 0, vreducehalfValMask2 = 0, vreducehalfValMask3 = 0;
  uint16_t vreducehalfValMask4 = 0, vreducehalfValMask5 = 0, vreducehalfValMask6 = 0, vreducehalfValMask7 = 0;
};
static_assert(sizeof(TopkTiling) == 112, "TopkTiling is 24 four-byte and 8 two-byte fields");

// The generated kernel_tiling.h declares these in AscendC::tiling and exports them at global scope.
namespace AscendC {
namespace tiling {
using ::LayerNormSeparateTiling;
using ::SoftMaxTiling;
using ::TCubeTiling;
using ::TopkTiling;
}  // namespace tiling
}  // namespace AscendC

#endif  // SK_TWIN_ADV_TILING_H_
