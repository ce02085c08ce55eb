// The HCCL high-level API on the CPU twin (lib/hccl/hccl.h; kernel_operator.h
// includes it): AscendC::Hccl<serverType, config> with Init/InitV2,
// SetCcTiling/SetCcTilingV2, the Prepare calls AllReduce, AllGather,
// ReduceScatter, AlltoAll, AlltoAllV and BatchWrite, Commit, Wait, Query,
// Finalize, GetWindowsInAddr/GetWindowsOutAddr, GetRankId/GetRankDim;
// GetHcclContext/SetHcclContext; HcclDataType, HcclReduceOp, HcclCMDType,
// HcclServerType, HcclServerConfig, HCCL_GROUP_ID_0, HcclHandle.
//
// The twin is ONE rank (rank 0 of 1). Every collective means for one rank what
// its definition says: AllReduce/AllGather/ReduceScatter/AlltoAll(V) copy this
// rank's block of sendBuf to its place in recvBuf (count elements of the
// data type, round i of `repeat` offset by i blocks; AllGather/AlltoAll copy
// nothing when the Mc2CcTiling sets skipLocalRankCopy), a BatchWrite item to
// rank 0 copies its bytes (with a config naming a core, only that core's
// calls move data). A round runs when it is committed (Commit, or the
// Prepare call with commit = true), in Prepare order, so Wait and Query find it
// done. What a kernel gets wrong is named at run time, as the hardware would
// hang or the server refuse it: a context whose rank count is not 1 (the twin
// has one rank), a Prepare before Init/SetCcTiling, or after Finalize, more
// than 63 Prepare calls, a data type or reduce operation the call does not
// take, repeat 0, a Commit past the task's repeat count, a Wait for a round
// never committed or out of Prepare order, a Finalize with rounds never
// committed, a Mc2CcTiling whose command type is not the Prepare's, the window of a rank other than 0.
#ifndef SK_TWIN_HCCL_H_
#define SK_TWIN_HCCL_H_

#include <cstdint>
#include <cstdio>
#include <cstring>

#include "sk_twin_hccl_abi.h"
#include "sk_twin_hccl_tiling.h"

namespace AscendC {

constexpr uint32_t HCCL_GROUP_ID_0 = 0;
constexpr uint32_t HCCL_MAX_RANK_NUM = sk_twin_hccl::kMaxRanks;
constexpr int32_t HCCL_SUCCESS = 0;
constexpr int32_t HCCL_FAILED = -1;
using HcclHandle = int8_t;

// The data cache line (dcci works on it): 64 bytes on Atlas A2/A3.
constexpr uint32_t CACHE_LINE_SIZE = 64;

// What the context's `data` field points at for RDMA (IB verbs) transports: null on the twin's single rank.
struct MemDetails {
  uint64_t size;
  uint64_t addr;
  uint32_t key;
};
struct IbVerbsData {
  MemDetails remoteInput;
  MemDetails remoteOutput;
  MemDetails localInput;
  MemDetails localOutput;
  uint8_t res[24];
};
constexpr HcclHandle INVALID_HANDLE_ID = -1;

enum class HcclCMDType {
  HCCL_CMD_INVALID = 0,
  HCCL_CMD_BROADCAST = 1,
  HCCL_CMD_ALLREDUCE,
  HCCL_CMD_REDUCE,
  HCCL_CMD_SEND,
  HCCL_CMD_RECEIVE,
  HCCL_CMD_ALLGATHER,
  HCCL_CMD_REDUCE_SCATTER,
  HCCL_CMD_ALLTOALLV,
  HCCL_CMD_ALLTOALLVC,
  HCCL_CMD_ALLTOALL,
  HCCL_CMD_GATHER,
  HCCL_CMD_SCATTER,
  HCCL_CMD_BATCH_SEND_RECV,
  HCCL_CMD_BATCH_PUT,
  HCCL_CMD_BATCH_GET,
  HCCL_CMD_ALLGATHER_V,
  HCCL_CMD_REDUCE_SCATTER_V,
  HCCL_CMD_BATCH_WRITE,
  HCCL_CMD_HALF_ALLTOALLV = 20,
  HCCL_CMD_ALL
};

enum HcclReduceOp {
  HCCL_REDUCE_SUM = 0,
  HCCL_REDUCE_PROD = 1,
  HCCL_REDUCE_MAX = 2,
  HCCL_REDUCE_MIN = 3,
  HCCL_REDUCE_RESERVED
};

enum HcclServerType { HCCL_SERVER_TYPE_AICPU = 0, HCCL_SERVER_TYPE_CCU = 5, HCCL_SERVER_TYPE_END };

enum class CoreType : uint8_t { DEFAULT, ON_AIV, ON_AIC };

struct HcclServerConfig {
  CoreType type;
  int64_t blockId;
};
static constexpr HcclServerConfig DEFAULT_CFG = {CoreType::DEFAULT, 0};

enum HcclDataType {
  HCCL_DATA_TYPE_INT8 = 0,
  HCCL_DATA_TYPE_INT16 = 1,
  HCCL_DATA_TYPE_INT32 = 2,
  HCCL_DATA_TYPE_FP16 = 3,
  HCCL_DATA_TYPE_FP32 = 4,
  HCCL_DATA_TYPE_INT64 = 5,
  HCCL_DATA_TYPE_UINT64 = 6,
  HCCL_DATA_TYPE_UINT8 = 7,
  HCCL_DATA_TYPE_UINT16 = 8,
  HCCL_DATA_TYPE_UINT32 = 9,
  HCCL_DATA_TYPE_FP64 = 10,
  HCCL_DATA_TYPE_BFP16 = 11,
  HCCL_DATA_TYPE_INT128 = 12,
  HCCL_DATA_TYPE_HIF8 = 14,
  HCCL_DATA_TYPE_FP8E4M3 = 15,
  HCCL_DATA_TYPE_FP8E5M2 = 16,
  HCCL_DATA_TYPE_FP8E8M0 = 17,
  HCCL_DATA_TYPE_RESERVED
};

// The context (message area) of communication domain `index` (0 or 1).
template <uint32_t index = HCCL_GROUP_ID_0>
inline __gm__ uint8_t* GetHcclContext(void) {
  static_assert(index < sk_twin_hccl::kDomains, "GetHcclContext<index>: index must be 0 or 1 (2 communication domains)");
  return ::sk_twin_hccl_context(index);
}

template <uint32_t index = HCCL_GROUP_ID_0>
inline void SetHcclContext(__gm__ uint8_t* context) {
  static_assert(index < sk_twin_hccl::kDomains, "SetHcclContext<index>: index must be 0 or 1 (2 communication domains)");
  ::sk_twin_hccl_set_context(index, context);
}

}  // namespace AscendC

namespace sk_twin_hccl {

// Bytes of one element; 0 for a value HcclDataType does not name or the twin cannot size (INT128, RESERVED).
inline uint64_t DataTypeBytes(int32_t t) {
  switch (t) {
    case AscendC::HCCL_DATA_TYPE_INT8: case AscendC::HCCL_DATA_TYPE_UINT8: case AscendC::HCCL_DATA_TYPE_HIF8:
    case AscendC::HCCL_DATA_TYPE_FP8E4M3: case AscendC::HCCL_DATA_TYPE_FP8E5M2: case AscendC::HCCL_DATA_TYPE_FP8E8M0:
      return 1;
    case AscendC::HCCL_DATA_TYPE_INT16: case AscendC::HCCL_DATA_TYPE_UINT16: case AscendC::HCCL_DATA_TYPE_FP16:
    case AscendC::HCCL_DATA_TYPE_BFP16:
      return 2;
    case AscendC::HCCL_DATA_TYPE_INT32: case AscendC::HCCL_DATA_TYPE_UINT32: case AscendC::HCCL_DATA_TYPE_FP32:
      return 4;
    case AscendC::HCCL_DATA_TYPE_INT64: case AscendC::HCCL_DATA_TYPE_UINT64: case AscendC::HCCL_DATA_TYPE_FP64:
      return 8;
    default:
      return 0;
  }
}

// AllReduce and ReduceScatter reduce: fp32, fp16, int8, int16, int32, bf16 only.
inline bool ReducibleType(int32_t t) {
  return t == AscendC::HCCL_DATA_TYPE_FP32 || t == AscendC::HCCL_DATA_TYPE_FP16 || t == AscendC::HCCL_DATA_TYPE_INT8 ||
         t == AscendC::HCCL_DATA_TYPE_INT16 || t == AscendC::HCCL_DATA_TYPE_INT32 || t == AscendC::HCCL_DATA_TYPE_BFP16;
}

[[noreturn]] inline void Fail(const char* call, const char* problem, const char* allowed) {
  ::sk_twin_hccl_fail(call, problem, allowed);
  __builtin_unreachable();
}

// A2: at most 63 Prepare calls in one communication domain.
constexpr int kMaxTasks = 63;

// One task as the server keeps it: what round i moves, in bytes.
struct Task {
  int32_t cmd = 0;             // HcclCMDType
  uint8_t* send = nullptr;
  uint8_t* recv = nullptr;
  uint64_t bytes = 0;          // one round's block of this rank
  uint64_t send_step = 0;      // bytes between rounds
  uint64_t recv_step = 0;
  uint64_t send_at = 0;        // where this rank's block starts (AlltoAllV's displacements)
  uint64_t recv_at = 0;
  uint32_t repeat = 0;
  uint32_t committed = 0;
  uint32_t waited = 0;
  const uint8_t* items = nullptr;  // BatchWrite
  uint32_t item_num = 0;
};

// A2 BatchWriteItem.
struct BatchWriteItem {
  uint64_t localBuf;
  uint64_t remoteBuf;
  uint64_t count;
  uint32_t dataType;
  uint32_t remoteRankId;
};

inline const char* CmdName(int32_t cmd) {
  switch (static_cast<AscendC::HcclCMDType>(cmd)) {
    case AscendC::HcclCMDType::HCCL_CMD_ALLREDUCE: return "AllReduce";
    case AscendC::HcclCMDType::HCCL_CMD_ALLGATHER: return "AllGather";
    case AscendC::HcclCMDType::HCCL_CMD_REDUCE_SCATTER: return "ReduceScatter";
    case AscendC::HcclCMDType::HCCL_CMD_ALLTOALL: return "AlltoAll";
    case AscendC::HcclCMDType::HCCL_CMD_ALLTOALLV: return "AlltoAllV";
    case AscendC::HcclCMDType::HCCL_CMD_BATCH_WRITE: return "BatchWrite";
    default: return "command";
  }
}

}  // namespace sk_twin_hccl

namespace AscendC {

template <HcclServerType serverType = HCCL_SERVER_TYPE_AICPU, const auto& config = DEFAULT_CFG>
class Hccl {
  static_assert(serverType == HCCL_SERVER_TYPE_AICPU,
                "the CPU twin models Atlas A2/A3: Hccl's serverType must be HCCL_SERVER_TYPE_AICPU (CCU is Ascend 950's)");

 public:
  // Init without initTiling is the v1 form: Prepare calls need no Mc2CcTiling.
  __aicore__ inline void Init(GM_ADDR context, __gm__ void* initTiling = nullptr) {
    Attach("Hccl::Init", context);
    init_tiling_ = static_cast<const uint8_t*>(initTiling);
    needs_cc_ = initTiling != nullptr;
  }

  __aicore__ inline void InitV2(GM_ADDR context, const void* initTiling) {
    if (initTiling == nullptr) {
      sk_twin_hccl::Fail("Hccl::InitV2", "initTiling is null", "the address of the tiling data's Mc2InitTiling");
    }
    Attach("Hccl::InitV2", context);
    init_tiling_ = static_cast<const uint8_t*>(initTiling);
    needs_cc_ = true;
  }

  __aicore__ inline int32_t SetCcTiling(__gm__ void* ccOpTilingData) {
    Need("Hccl::SetCcTiling");
    if (ccOpTilingData == nullptr) {
      sk_twin_hccl::Fail("Hccl::SetCcTiling", "ccOpTilingData is null", "the address of a Mc2CcTiling");
    }
    TakeCc(static_cast<const uint8_t*>(ccOpTilingData));
    return HCCL_SUCCESS;
  }

  // offset: of the Mc2CcTiling from the start of the Mc2InitTiling InitV2 was given.
  __aicore__ inline int32_t SetCcTilingV2(uint64_t offset) {
    Need("Hccl::SetCcTilingV2");
    if (init_tiling_ == nullptr) {
      sk_twin_hccl::Fail("Hccl::SetCcTilingV2", "no Mc2InitTiling: the object was initialised without one",
                         "InitV2(context, &tilingData) before SetCcTilingV2");
    }
    if (offset < sizeof(tiling::Mc2InitTiling)) {
      char p[96];
      std::snprintf(p, sizeof p, "offset %llu lies inside the Mc2InitTiling", static_cast<unsigned long long>(offset));
      sk_twin_hccl::Fail("Hccl::SetCcTilingV2", p, "offsetof(TilingData, ccTiling) - offsetof(TilingData, initTiling) >= 64");
    }
    TakeCc(init_tiling_ + offset);
    return HCCL_SUCCESS;
  }

  template <bool commit = false>
  __aicore__ inline HcclHandle AllReduce(GM_ADDR sendBuf, GM_ADDR recvBuf, uint64_t count, HcclDataType dataType,
                                         HcclReduceOp op, uint8_t repeat = 1) {
    const uint64_t b = ReducedBytes("Hccl::AllReduce", count, dataType, op);
    return Add<commit>("Hccl::AllReduce", HcclCMDType::HCCL_CMD_ALLREDUCE, sendBuf, recvBuf, b, b, b, 0, 0, repeat);
  }

  // strideCount places the other ranks' blocks; rank 0's is at recvBuf + 0.
  template <bool commit = false>
  __aicore__ inline HcclHandle AllGather(GM_ADDR sendBuf, GM_ADDR recvBuf, uint64_t sendCount, HcclDataType dataType,
                                         uint64_t strideCount, uint8_t repeat = 1) {
    (void)strideCount;
    const uint64_t b = sendCount * Bytes("Hccl::AllGather", dataType);
    return Add<commit>("Hccl::AllGather", HcclCMDType::HCCL_CMD_ALLGATHER, sendBuf, recvBuf, b, b, b, 0, 0, repeat);
  }

  // strideCount places the blocks for the other ranks; rank 0's is at sendBuf + 0.
  template <bool commit = false>
  __aicore__ inline HcclHandle ReduceScatter(GM_ADDR sendBuf, GM_ADDR recvBuf, uint64_t recvCount,
                                             HcclDataType dataType, HcclReduceOp op, uint64_t strideCount,
                                             uint8_t repeat = 1) {
    (void)strideCount;
    const uint64_t b = ReducedBytes("Hccl::ReduceScatter", recvCount, dataType, op);
    return Add<commit>("Hccl::ReduceScatter", HcclCMDType::HCCL_CMD_REDUCE_SCATTER, sendBuf, recvBuf, b, b, b, 0, 0,
                       repeat);
  }

  template <bool commit = false>
  __aicore__ inline HcclHandle AlltoAll(GM_ADDR sendBuf, GM_ADDR recvBuf, uint64_t dataCount, HcclDataType dataType,
                                        uint64_t strideCount = 0, uint8_t repeat = 1) {
    (void)strideCount;
    const uint64_t b = dataCount * Bytes("Hccl::AlltoAll", dataType);
    return Add<commit>("Hccl::AlltoAll", HcclCMDType::HCCL_CMD_ALLTOALL, sendBuf, recvBuf, b, b, b, 0, 0, repeat);
  }

  // The count/displacement arrays have one uint64_t per rank: [0] is this rank's. Round i moves
  // sendCounts[0] elements from sdispls[0] + i * sendCounts[0] to rdispls[0] + i * recvCounts[0].
  template <bool commit = false>
  __aicore__ inline HcclHandle AlltoAllV(GM_ADDR sendBuf, void* sendCounts, void* sdispls, HcclDataType sendType,
                                         GM_ADDR recvBuf, void* recvCounts, void* rdispls, HcclDataType recvType,
                                         uint8_t repeat = 1) {
    const char* call = "Hccl::AlltoAllV";
    const uint64_t e = Bytes(call, sendType);
    if (recvType != sendType) {
      char p[96];
      std::snprintf(p, sizeof p, "recvType %d differs from sendType %d", static_cast<int>(recvType),
                    static_cast<int>(sendType));
      sk_twin_hccl::Fail(call, p, "recvType equal to sendType");
    }
    if (sendCounts == nullptr || sdispls == nullptr || recvCounts == nullptr || rdispls == nullptr) {
      sk_twin_hccl::Fail(call, "a count or displacement array is null", "uint64_t arrays of rank-count entries");
    }
    const uint64_t sc = static_cast<const uint64_t*>(sendCounts)[0];
    const uint64_t rc = static_cast<const uint64_t*>(recvCounts)[0];
    if (sc != rc) {
      char p[128];
      std::snprintf(p, sizeof p, "rank 0 sends itself %llu elements but receives %llu from itself",
                    static_cast<unsigned long long>(sc), static_cast<unsigned long long>(rc));
      sk_twin_hccl::Fail(call, p, "sendCounts[0] == recvCounts[0]");
    }
    const uint64_t sd = static_cast<const uint64_t*>(sdispls)[0] * e;
    const uint64_t rd = static_cast<const uint64_t*>(rdispls)[0] * e;
    return Add<commit>(call, HcclCMDType::HCCL_CMD_ALLTOALLV, sendBuf, recvBuf, sc * e, sc * e, rc * e, sd, rd,
                       repeat);
  }

  // batchWriteInfo: itemNum A2 BatchWriteItems {localBuf, remoteBuf, count, dataType, remoteRankId}.
  template <bool commit = false>
  __aicore__ inline HcclHandle BatchWrite(GM_ADDR batchWriteInfo, uint32_t itemNum, uint16_t queueID = 0U) {
    const char* call = "Hccl::BatchWrite";
    if (queueID != 0) {
      char p[48];
      std::snprintf(p, sizeof p, "queueID %u", static_cast<unsigned>(queueID));
      sk_twin_hccl::Fail(call, p, "0 (Atlas A2 has one queue)");
    }
    if (batchWriteInfo == nullptr && itemNum != 0) sk_twin_hccl::Fail(call, "batchWriteInfo is null", "an item array");
    HcclHandle h = Add<false>(call, HcclCMDType::HCCL_CMD_BATCH_WRITE, nullptr, nullptr, 0, 0, 0, 0, 0, 1);
    tasks_[h].items = batchWriteInfo;
    tasks_[h].item_num = itemNum;
    if (commit) Commit(h);
    return h;
  }

  // Runs the task's next round.
  __aicore__ inline void Commit(HcclHandle handleId) {
    sk_twin_hccl::Task& t = Live("Hccl::Commit", handleId);
    if (finalized_) Late("Hccl::Commit");
    if (t.committed >= t.repeat) {
      char p[128];
      std::snprintf(p, sizeof p, "handle %d (%s) committed a %uth time", static_cast<int>(handleId),
                    sk_twin_hccl::CmdName(t.cmd), t.committed + 1);
      char a[64];
      std::snprintf(a, sizeof a, "%u commits: the task's repeat count", t.repeat);
      sk_twin_hccl::Fail("Hccl::Commit", p, a);
    }
    RunRound(t, t.committed);
    t.committed += 1;
  }

  // Waits for the next committed round of the task; the twin ran it at Commit.
  __aicore__ inline int32_t Wait(HcclHandle handleId) {
    sk_twin_hccl::Task& t = Live("Hccl::Wait", handleId);
    if (handleId < last_wait_) {
      char p[96];
      std::snprintf(p, sizeof p, "Wait(%d) after Wait(%d)", static_cast<int>(handleId), static_cast<int>(last_wait_));
      sk_twin_hccl::Fail("Hccl::Wait", p, "Wait calls in the order of the Prepare calls");
    }
    if (t.waited >= t.committed) {
      char p[128];
      std::snprintf(p, sizeof p, "handle %d (%s) waits for round %u, committed %u of %u: the hardware waits forever",
                    static_cast<int>(handleId), sk_twin_hccl::CmdName(t.cmd), t.waited + 1, t.committed, t.repeat);
      sk_twin_hccl::Fail("Hccl::Wait", p, "a Wait for each committed round only");
    }
    t.waited += 1;
    last_wait_ = handleId;
    return HCCL_SUCCESS;
  }

  // Rounds of the task finished so far (at most repeat).
  __aicore__ inline int32_t Query(HcclHandle handleId) {
    return static_cast<int32_t>(Live("Hccl::Query", handleId).committed);
  }

  template <bool sync = true>
  __aicore__ inline void Finalize() {
    Need("Hccl::Finalize");
    for (int i = 0; i < num_tasks_; ++i) {
      const sk_twin_hccl::Task& t = tasks_[i];
      if (t.committed < t.repeat) {
        char p[128];
        std::snprintf(p, sizeof p, "handle %d (%s) committed %u of %u rounds", i, sk_twin_hccl::CmdName(t.cmd),
                      t.committed, t.repeat);
        sk_twin_hccl::Fail("Hccl::Finalize", p, "every round of every task committed before Finalize");
      }
    }
    finalized_ = true;
  }

  // The hardware gives nullptr for a rank outside the domain; kernels index windows by the rank ids of their
  // tiling and never test for it, so on the twin's one rank the call fails naming the rank instead.
  __aicore__ inline GM_ADDR GetWindowsInAddr(uint32_t rankId) {
    Need("Hccl::GetWindowsInAddr");
    CheckRank("Hccl::GetWindowsInAddr", rankId);
    return reinterpret_cast<GM_ADDR>(context_->windowsIn[rankId]);
  }

  __aicore__ inline GM_ADDR GetWindowsOutAddr(uint32_t rankId) {
    Need("Hccl::GetWindowsOutAddr");
    CheckRank("Hccl::GetWindowsOutAddr", rankId);
    return reinterpret_cast<GM_ADDR>(context_->windowsOut[rankId]);
  }

  __aicore__ inline uint32_t GetRankId() {
    Need("Hccl::GetRankId");
    return context_->rankId;
  }

  __aicore__ inline uint32_t GetRankDim() {
    Need("Hccl::GetRankDim");
    return context_->rankNum;
  }

 private:
  void Attach(const char* call, GM_ADDR context) {
    if (context == nullptr) sk_twin_hccl::Fail(call, "the context is null", "GetHcclContext<0>() or <1>()");
    const auto* c = reinterpret_cast<const sk_twin_hccl::Context*>(context);
    if (c->rankNum != 1 || c->rankId != 0) {
      char p[128];
      std::snprintf(p, sizeof p, "the context has rank %u of %u ranks", c->rankId, c->rankNum);
      sk_twin_hccl::Fail(call, p, "rank 0 of 1: the CPU twin runs one rank");
    }
    context_ = c;
    cc_set_ = false;
    num_tasks_ = 0;
    last_wait_ = 0;
    finalized_ = false;
  }

  void CheckRank(const char* call, uint32_t rankId) const {
    if (rankId >= context_->rankNum) {
      char p[96];
      std::snprintf(p, sizeof p, "rank %u of a communication domain of %u rank(s)", rankId, context_->rankNum);
      sk_twin_hccl::Fail(call, p, "rank 0: the CPU twin runs one rank (a tiling's rank count and rank ids must be 1 and 0)");
    }
  }

  void TakeCc(const uint8_t* cc) {
    std::memcpy(&cc_op_type_, cc + sk_twin_hccl::kCcOpTypeOffset, sizeof cc_op_type_);
    cc_skip_local_ = cc[sk_twin_hccl::kCcSkipLocalRankCopyOffset];
    cc_set_ = true;
  }

  void Need(const char* call) const {
    if (context_ == nullptr) sk_twin_hccl::Fail(call, "the Hccl object is not initialised", "Init or InitV2 first");
  }

  [[noreturn]] void Late(const char* call) const {
    sk_twin_hccl::Fail(call, "called after Finalize", "no Prepare or Commit after Finalize");
  }

  uint64_t Bytes(const char* call, HcclDataType t) const {
    const uint64_t b = sk_twin_hccl::DataTypeBytes(static_cast<int32_t>(t));
    if (b == 0) {
      char p[48];
      std::snprintf(p, sizeof p, "dataType %d", static_cast<int>(t));
      sk_twin_hccl::Fail(call, p, "an HcclDataType value other than INT128 and RESERVED");
    }
    return b;
  }

  uint64_t ReducedBytes(const char* call, uint64_t count, HcclDataType t, HcclReduceOp op) const {
    if (!sk_twin_hccl::ReducibleType(static_cast<int32_t>(t))) {
      char p[48];
      std::snprintf(p, sizeof p, "dataType %d", static_cast<int>(t));
      sk_twin_hccl::Fail(call, p, "HCCL_DATA_TYPE_FP32, FP16, INT8, INT16, INT32 or BFP16");
    }
    if (op != HCCL_REDUCE_SUM && op != HCCL_REDUCE_MAX && op != HCCL_REDUCE_MIN) {
      char p[48];
      std::snprintf(p, sizeof p, "reduce op %d", static_cast<int>(op));
      sk_twin_hccl::Fail(call, p, "HCCL_REDUCE_SUM, HCCL_REDUCE_MAX or HCCL_REDUCE_MIN");
    }
    return count * sk_twin_hccl::DataTypeBytes(static_cast<int32_t>(t));
  }

  template <bool commit>
  HcclHandle Add(const char* call, HcclCMDType cmd, GM_ADDR send, GM_ADDR recv, uint64_t bytes, uint64_t send_step,
                 uint64_t recv_step, uint64_t send_at, uint64_t recv_at, uint8_t repeat) {
    Need(call);
    if (finalized_) Late(call);
    if (needs_cc_ && !cc_set_) {
      sk_twin_hccl::Fail(call, "no Mc2CcTiling is set", "SetCcTilingV2(offset) (or SetCcTiling) before a Prepare call");
    }
    if (cc_set_) {
      if (cc_op_type_ != 0 && cc_op_type_ != static_cast<uint32_t>(cmd)) {
        char p[128];
        std::snprintf(p, sizeof p, "the Mc2CcTiling set is for command type %u, not %s (%d)", cc_op_type_,
                      sk_twin_hccl::CmdName(static_cast<int32_t>(cmd)), static_cast<int>(cmd));
        sk_twin_hccl::Fail(call, p, "SetCcTilingV2 with the offset of this task's Mc2CcTiling");
      }
    }
    if (repeat == 0) sk_twin_hccl::Fail(call, "repeat 0", "repeat >= 1");
    if (num_tasks_ >= sk_twin_hccl::kMaxTasks) {
      sk_twin_hccl::Fail(call, "a 64th Prepare call in one communication domain", "at most 63 Prepare calls");
    }
    if (bytes != 0 && (send == nullptr || recv == nullptr)) {
      sk_twin_hccl::Fail(call, "sendBuf or recvBuf is null", "GM addresses");
    }
    const HcclHandle h = static_cast<HcclHandle>(num_tasks_);
    sk_twin_hccl::Task& t = tasks_[num_tasks_++];
    t = sk_twin_hccl::Task{};
    t.cmd = static_cast<int32_t>(cmd);
    t.send = send;
    t.recv = recv;
    t.bytes = bytes;
    t.send_step = send_step;
    t.recv_step = recv_step;
    t.send_at = send_at;
    t.recv_at = recv_at;
    t.repeat = repeat;
    // skipLocalRankCopy (A2: AllGather and AlltoAll only): this rank's own block is not copied to recvBuf,
    // which on one rank leaves nothing to move.
    if (cc_set_ && cc_skip_local_ == 1 &&
        (cmd == HcclCMDType::HCCL_CMD_ALLGATHER || cmd == HcclCMDType::HCCL_CMD_ALLTOALL)) {
      t.bytes = 0;
    }
    if (commit) {
      for (uint32_t i = 0; i < t.repeat; ++i) Commit(h);
    }
    return h;
  }

  sk_twin_hccl::Task& Live(const char* call, HcclHandle h) {
    Need(call);
    if (h < 0 || h >= num_tasks_) {
      char p[64];
      std::snprintf(p, sizeof p, "handle %d", static_cast<int>(h));
      char a[64];
      std::snprintf(a, sizeof a, "a handle a Prepare call returned (0..%d)", num_tasks_ - 1);
      sk_twin_hccl::Fail(call, p, a);
    }
    return tasks_[h];
  }

  // A config naming a core (HcclServerConfig{ON_AIV or ON_AIC, blockId}) lets every core make the calls;
  // only that core's messages reach the server, so only its rounds move data.
  static bool Issues() {
    if (config.type == CoreType::DEFAULT) return true;
    const int32_t want = config.type == CoreType::ON_AIV ? 1 : 0;
    return ::sk_twin_core_type() == want && ::sk_twin_block_idx() == config.blockId;
  }

  void RunRound(const sk_twin_hccl::Task& t, uint32_t i) {
    if (!Issues()) return;
    if (t.cmd == static_cast<int32_t>(HcclCMDType::HCCL_CMD_BATCH_WRITE)) {
      for (uint32_t k = 0; k < t.item_num; ++k) {
        sk_twin_hccl::BatchWriteItem it;
        std::memcpy(&it, t.items + k * sizeof it, sizeof it);
        if (it.remoteRankId >= context_->rankNum) {
          char p[96];
          std::snprintf(p, sizeof p, "item %u writes to rank %u", k, it.remoteRankId);
          sk_twin_hccl::Fail("Hccl::BatchWrite", p, "rank 0: the CPU twin runs one rank");
        }
        const uint64_t b = it.count * Bytes("Hccl::BatchWrite", static_cast<HcclDataType>(it.dataType));
        if (b != 0) std::memmove(reinterpret_cast<void*>(it.remoteBuf), reinterpret_cast<const void*>(it.localBuf), b);
      }
      return;
    }
    if (t.bytes == 0) return;
    uint8_t* dst = t.recv + t.recv_at + static_cast<uint64_t>(i) * t.recv_step;
    const uint8_t* src = t.send + t.send_at + static_cast<uint64_t>(i) * t.send_step;
    if (dst != src) std::memmove(dst, src, t.bytes);
  }

  const sk_twin_hccl::Context* context_ = nullptr;
  const uint8_t* init_tiling_ = nullptr;
  // What the Prepare calls need of the Mc2CcTiling, read when it is set: kernels pass the address of a
  // tiling struct on the stack (GET_TILING_DATA_WITH_STRUCT in an Init method) that is gone by the Prepare.
  bool cc_set_ = false;
  uint32_t cc_op_type_ = 0;
  uint8_t cc_skip_local_ = 0;
  bool needs_cc_ = false;
  bool finalized_ = false;
  int num_tasks_ = 0;
  HcclHandle last_wait_ = 0;
  sk_twin_hccl::Task tasks_[sk_twin_hccl::kMaxTasks];
};

}  // namespace AscendC

#endif  // SK_TWIN_HCCL_H_
