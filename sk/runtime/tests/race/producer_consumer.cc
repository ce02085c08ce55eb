// Two vector sub-kernels fused into one SK entry: the consumer reads what
// other cores' producers wrote, so it needs the inter-op barrier. BARRIER
// selects it: 0 none (a plan with the barrier removed), 1 the AIV all-core
// ffts barrier upstream emits with early-start=0, 2 early start.
#include "kernel_operator.h"

#ifndef BARRIER
#error "compile with -DBARRIER=0|1|2"
#endif

constexpr int64_t kPerBlock = 256;

extern "C" __aicore__ void producer_middle(uint64_t args_offset) {
  GM_ADDR* param_base = (GM_ADDR*)get_para_base();
  auto* data = reinterpret_cast<int32_t*>(param_base[args_offset]);
  int64_t begin = AscendC::GetBlockIdx() * kPerBlock;
  for (int64_t i = begin; i < begin + kPerBlock; ++i) data[i] = static_cast<int32_t>(i * 3);
}

extern "C" __aicore__ void consumer_middle(uint64_t args_offset) {
  GM_ADDR* param_base = (GM_ADDR*)get_para_base();
  auto* data = reinterpret_cast<const int32_t*>(param_base[args_offset]);
  auto* out = reinterpret_cast<int32_t*>(param_base[args_offset + 1]);
  int64_t blocks = AscendC::GetBlockNum();
  int64_t neighbour = (AscendC::GetBlockIdx() + 1) % blocks;
  for (int64_t i = 0; i < kPerBlock; ++i) {
    out[AscendC::GetBlockIdx() * kPerBlock + i] = data[neighbour * kPerBlock + i] + 1;
  }
}

extern "C" __global__ __aicore__ void producer_consumer_sk(void) {
  GM_ADDR* param_base = (GM_ADDR*)get_para_base();
  GM_ADDR ffts_addr = param_base[0];
  if (ffts_addr != nullptr) {
    set_ffts_base_addr((uint64_t)ffts_addr);
  }
  if ASCEND_IS_AIV {
    producer_middle(1);
  }
#if BARRIER == 1
  ffts_cross_core_sync(PIPE_MTE3, AscendC::GetffstMsg(0x0, AscendC::SYNC_AIV_ONLY_ALL));
  wait_flag_dev(AscendC::SYNC_AIV_ONLY_ALL);
#elif BARRIER == 2
  if ASCEND_IS_AIV {
    AscendC::SetNextTaskStart<PIPE_MTE3, PIPE_FIX, true>();
  }
  g_super_kernel_early_start_config = AscendC::EARLY_START_AIV_TO_AIV;
  AscendC::WaitPreTaskEndImpl<AscendC::EARLY_START_AIV_TO_AIV>();
#endif
  if ASCEND_IS_AIV {
    consumer_middle(1);
  }
}
