// A helper shared by the element-wise operators of this folder. Operators include it as
// "../elementwise_common/block_split.h": the op build stages every op's op_kernel/ side by side.
#ifndef ELEMENTWISE_COMMON_BLOCK_SPLIT_H
#define ELEMENTWISE_COMMON_BLOCK_SPLIT_H

#include "kernel_operator.h"

namespace ElementwiseCommon {

// The [offset, offset + count) elements block `blockIdx` of `blockNum` handles: equal shares of
// `blockFactor` elements, the last block takes the remainder.
struct BlockRange {
    int64_t offset;
    int64_t count;
};

__aicore__ inline BlockRange SplitBlocks(int64_t totalNum, int64_t blockFactor, int64_t blockIdx)
{
    const int64_t offset = blockIdx * blockFactor;
    int64_t count = totalNum - offset;
    if (count > blockFactor) {
        count = blockFactor;
    }
    if (count < 0) {
        count = 0;
    }
    return BlockRange{offset, count};
}

}  // namespace ElementwiseCommon

#endif  // ELEMENTWISE_COMMON_BLOCK_SPLIT_H
