// sk_twin_event.h - NotifyEvent/WaitEvent: the cross-core event pair of dav-c220.
//
// Per Ascend C (kernel_operator_block_sync_intf_impl.h, dav-c220): NotifyEvent<pipe>(flag) is
// CrossCoreSetFlag<2, pipe>(flag) (mode 2: an AIC and the AIVs of its AI core signal each other), and
// WaitEvent<pipe = PIPE_S>(flag) is CrossCoreWaitFlag<0, pipe>(flag). Both run on the twin's per-core
// flag counters (flags.cc), so its checks apply: a flag id above 15, a counter that overflows its
// 4 bits, a wait nobody will satisfy (deadlock report) are all named at run time.
#ifndef SK_TWIN_EVENT_H_
#define SK_TWIN_EVENT_H_

namespace AscendC {

template <pipe_t pipe>
static inline void NotifyEvent(uint16_t flagId) {
  // The FFTS message keeps 4 bits of the id: name a larger one rather than signal flag (id & 15).
  if (flagId > 15) ::sk_twin_fail("NotifyEvent: flag id is out of range (0-15)");
  CrossCoreSetFlag<2, pipe>(flagId);
}

template <pipe_t pipe = PIPE_S>
static inline void WaitEvent(uint16_t flagId) {
  CrossCoreWaitFlag<0, pipe>(flagId);
}

// The FFTS base address the cross-core flags live at (set_ffts_base_addr): the twin's flags need none, so the call
// is counted (SK_TWIN_COUNTER_SET_FFTS_BASE) as the intrinsic is.
static inline void SetSyncBaseAddr(uint64_t config) { set_ffts_base_addr(config); }

}  // namespace AscendC

#endif  // SK_TWIN_EVENT_H_
