/*
 * sk_twin.h - the C ABI of the CPU twin runtime (libskrt).
 *
 * Two audiences:
 *   - hosts (Python via ctypes, C++ test drivers): launch kernels on a
 *     topology of worker threads, allocate GM, read counters, errors and
 *     trace events (section "Host API");
 *   - kernel code: kernel_operator.h maps the Ascend C surface onto the
 *     "Kernel hooks" below; wrappers and generated code may call the trace
 *     hooks directly.
 *
 * Topology. An AI core is one cube worker (AIC) and up to two vector workers
 * (AIV). A launch of block_dim B with task ration aic:aiv runs, for every
 * block b in [0, B): aic (0 or 1) AIC workers with block idx b, and aiv
 * (0, 1 or 2) AIV workers with block idx b and sub-block idx 0..aiv-1.
 * Allowed rations: 1:0, 0:1, 1:1, 1:2. In a 0:1 launch every AIV is its own
 * group (sub-block dim 1), like a MIX_AIV_1_0 kernel on hardware.
 *
 * Entries. SK_TWIN_PARA_BASE_ENTRY (num_args) marks a `void f(void)` entry
 * that reads its arguments through get_para_base() (the SuperKernel entry;
 * params[0] is the FFTS placeholder). Any other num_args N (0..32) calls
 * `f(params[0], ..., params[N-1])` as GM_ADDR arguments; get_para_base()
 * still returns `params`.
 */
#ifndef SK_TWIN_H_
#define SK_TWIN_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- Host API */

#define SK_TWIN_PARA_BASE_ENTRY 0xffffffffu
#define SK_TWIN_MAX_ARGS 32u

/* Launch status codes. */
#define SK_TWIN_OK 0
#define SK_TWIN_DEADLOCK 1      /* a wait made no progress within the timeout */
#define SK_TWIN_KERNEL_ERROR 2  /* a kernel misused an intrinsic or threw */
#define SK_TWIN_BAD_LAUNCH 3    /* the launch description is invalid */
#define SK_TWIN_HANG 4          /* a worker ran on without progress, or past the launch limit */

typedef struct SkTwinLaunch {
  const char* name;        /* kernel name, used in errors and traces */
  void* entry;             /* entry function pointer */
  void* entry_aiv;         /* entry for AIV workers when the MIX halves were
                              compiled separately; NULL: `entry` */
  uint32_t num_args;       /* N GM_ADDR args, or SK_TWIN_PARA_BASE_ENTRY */
  uint32_t block_dim;      /* number of blocks (AI cores), >= 1 */
  uint32_t aic_ration;     /* AIC workers per block: 0 or 1 */
  uint32_t aiv_ration;     /* AIV workers per block: 0, 1 or 2 */
  const uint64_t* params;  /* the param array (param_base) */
  uint32_t num_params;     /* entries in params */
  uint32_t coreid_offset;  /* added to every worker's get_coreid() */
  uint32_t timeout_ms;     /* watchdog: no barrier progress and no worker ending
                              for this long fails the launch (a deadlock when
                              some worker waits, else a hang); 0:
                              $SK_TWIN_TIMEOUT_MS, else 5000 */
  uint32_t trace;          /* nonzero: record per-worker spans */
} SkTwinLaunch;

typedef struct SkTwinResult SkTwinResult;

/* ------------------------------------------- Memory-semantic words and tasks
 * A SuperKernel talks to tasks of other engines (an AI CPU tiling task, an
 * SDMA prefetch task) only through uint64 words in GM (facts §15.3): block 0
 * writes 1 to a notify word and dccis it; a waiting kernel dccis a word until
 * it reads 1. sk_twin_launch_tasks runs the tasks as threads beside the
 * launch. A dcci of a registered word is where the twin makes the write of
 * the other side visible: a kernel's dcci of a word a task writes returns once
 * the task has written it (the watchdog names the word and its writer when it
 * never is); a kernel's dcci after writing a word it notifies wakes the task
 * waiting for it. */
#define SK_TWIN_TASK_ERROR 5   /* an external task failed (its tiling, a notify never written) */

#define SK_TWIN_WORD_BY_KERNEL 0u  /* the kernel writes it (notify), a task waits for it */
#define SK_TWIN_WORD_BY_TASK 1u    /* a task writes it (tiling lock, event), the kernel waits */

typedef struct SkTwinWord {
  uint64_t* addr;
  uint32_t writer;   /* SK_TWIN_WORD_BY_* */
  const char* what;  /* for messages: the word, its op and who writes it */
} SkTwinWord;

struct SkTilingContext;  /* sk_tiling.h */

typedef struct SkTwinTask {
  const char* name;
  int32_t wait_word;            /* index in words of the notify it waits for first; -1: starts at once */
  int (*tiling)(struct SkTilingContext* ctx); /* tiling task: the host tiling function; NULL: prefetch */
  struct SkTilingContext* tiling_ctx;
  const uint64_t* tiling_keys;  /* the keys the kernel has: any other is an error */
  uint32_t num_tiling_keys;
  int32_t key_word;             /* words the tiling task writes the key and block count to; -1: none */
  int32_t block_word;
  int32_t release_word;         /* the word it sets to 1 when done (a lock or an event) */
  const void* prefetch;         /* prefetch task: the GM range it loads */
  uint64_t prefetch_bytes;
  const char* what;             /* for messages: its tiling function and op
                                   ("tiling function f of op 2 (x)"); NULL: "tiling function" */
} SkTwinTask;

/* One launch with its tasks: the tasks start with the workers; each waits for
 * its notify word, runs (tiling: calls the function; prefetch: reads the
 * range), writes its words and sets its release word. A tiling function that
 * returns non-zero or chooses a key or block count the kernel does not have
 * fails the launch at once (SK_TWIN_TASK_ERROR) naming the task and what it
 * returned; a notify that never comes fails it in bounded time (watchdog)
 * naming the word, its op and the task. A task still waiting when the kernel has ended
 * fails the launch with SK_TWIN_TASK_ERROR. A tiling function is caught like
 * a kernel: a fatal signal (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, a stack
 * overflow) or a C++ exception in it fails the launch at once
 * (SK_TWIN_TASK_ERROR), and one that runs for longer than the watchdog's
 * time fails it (SK_TWIN_HANG) and is taken back, naming the task and
 * function; the process goes on. */
int sk_twin_launch_tasks(const SkTwinLaunch* launch, const SkTwinWord* words, uint32_t num_words,
                         const SkTwinTask* tasks, uint32_t num_tasks, SkTwinResult** out);

/* A tiling task's function alone, as the unfused run calls it on the host
 * between launches: on a thread of its own, caught as in a launch with tasks
 * (timeout_ms: 0 = $SK_TWIN_TIMEOUT_MS, else 5000), its tiling key checked
 * against the task's keys and its block count against 1..max_block_dim. On
 * success (SK_TWIN_OK) task->tiling_ctx holds the key and block count; else
 * *out's error says why, naming task->what. Free *out with
 * sk_twin_result_free. */
int sk_twin_run_tiling(const SkTwinTask* task, uint32_t timeout_ms, SkTwinResult** out);

/* Runs one launch to completion; *out receives a result (free it with
 * sk_twin_result_free) even on failure. Returns the status. */
int sk_twin_launch(const SkTwinLaunch* launch, SkTwinResult** out);

/* Runs launches back to back, as one stream would (the "separate" baseline).
 * out[i] receives each result; it stops after the first failure and leaves
 * the rest NULL. Returns the status of the first failure, or SK_TWIN_OK. */
int sk_twin_run_sequence(const SkTwinLaunch* launches, uint32_t count, SkTwinResult** out);

void sk_twin_result_free(SkTwinResult* result);
int sk_twin_result_status(const SkTwinResult* result);
/* Empty on success; else one paragraph naming kernel, barrier and workers. */
const char* sk_twin_result_error(const SkTwinResult* result);
/* Flag counters left non-zero and incomplete set rounds at the end of the
 * launch (sets without matching waits); empty when balanced. */
const char* sk_twin_result_residual(const SkTwinResult* result);
uint64_t sk_twin_result_wall_ns(const SkTwinResult* result);
/* steady-clock ns when the launch started; trace times use the same clock. */
uint64_t sk_twin_result_start_ns(const SkTwinResult* result);

/* Counters are summed over all workers of a launch. */
uint32_t sk_twin_counter_count(void);
const char* sk_twin_counter_name(uint32_t index);
uint64_t sk_twin_result_counter(const SkTwinResult* result, uint32_t index);

uint32_t sk_twin_result_worker_count(const SkTwinResult* result);
/* "AIC 3" or "AIV 3.1" (block.sub-block). */
const char* sk_twin_result_worker_label(const SkTwinResult* result, uint32_t worker);
uint64_t sk_twin_result_event_count(const SkTwinResult* result);
/* Returns 0 and fills the outputs, or -1 when index is out of range. */
int sk_twin_result_event(const SkTwinResult* result, uint64_t index, uint32_t* worker,
                         uint64_t* begin_ns, uint64_t* end_ns, const char** name,
                         const char** category);

/* GM: zeroed host memory, 512-byte aligned, between two inaccessible guard
 * pages (an access beyond them is a kernel error naming the tensor, offset
 * and block); the bytes between tensor and guards are checked after every
 * launch. `name` (may be NULL) names the tensor in those errors. */
void* sk_twin_gm_alloc(uint64_t bytes);
void* sk_twin_gm_alloc_named(uint64_t bytes, const char* name);
void sk_twin_gm_free(void* ptr);

/* Cycles returned by GetSystemCycle() per second. */
uint64_t sk_twin_cycle_hz(void);

/* -------------------------------------------------------------- Kernel hooks
 * Valid only on a worker thread of a launch; elsewhere they print a message
 * and abort the process. */

/* 0 = AIC, 1 = AIV. */
int32_t sk_twin_core_type(void);
int64_t sk_twin_block_idx(void);
int64_t sk_twin_block_num(void);
int64_t sk_twin_sub_block_idx(void);
int64_t sk_twin_sub_block_num(void);
int64_t sk_twin_core_id(void);
uint64_t sk_twin_para_base(void);
uint32_t sk_twin_worker_index(void);

void sk_twin_set_ffts_base(uint64_t addr);
/* msg as built by GetffstMsg(mode, flag). */
void sk_twin_ffts_set(int32_t pipe, uint64_t msg);
void sk_twin_wait_flag(int64_t flag);
/* publish: the calling TU was compiled with feed-sync-all support. */
void sk_twin_sync_all(int32_t aiv_only, int32_t publish);
void sk_twin_set_next_task_start(void);
void sk_twin_wait_pre_task_end(uint32_t config);
void sk_twin_feed_sync_all_end(void);
void sk_twin_feed_sync_all_complement(void);

void sk_twin_preload(const void* addr, int64_t units);
void sk_twin_dcci(const volatile void* addr, int32_t entire, int32_t dst);
/* counter: one of SK_TWIN_COUNTER_* below. */
void sk_twin_count(uint32_t counter, uint64_t amount);
uint64_t sk_twin_cycles(void);

/* space: 0 = L1 (cbuf, AIC), 1 = UB (ubuf, AIV). addr is the local address.
 * Returns host memory for [addr, addr+bytes) or fails the launch. */
void* sk_twin_local(int32_t space, uint64_t addr, uint64_t bytes);

/* Fails the launch with msg (copied) and unwinds the calling worker. */
void sk_twin_fail(const char* msg);
/* GET_TILING_DATA*: fails the launch when the GM tensor holding `tiling`
 * ends before `bytes` (the struct's size) from it; host memory the twin does
 * not track passes unchecked. */
void sk_twin_check_tiling_read(const void* tiling, uint64_t bytes);

/* Kernel printing (AscendC::PRINTF, DumpTensor): the formatted text as one
 * line on stdout, prefixed "[AIV Block b/n] " / "[AIC Block b/n] ". */
void sk_twin_printf(const char* fmt, ...);
/* A failed ASSERT/ascendc_assert: prints "[ASSERT] file:line: func: Assertion
 * `expr' failed. <fmt...>" like sk_twin_printf, then fails the launch with
 * that text (file reduced to its base name). fmt may be NULL. */
void sk_twin_assert_fail(const char* file, uint32_t line, const char* func, const char* expr, const char* fmt, ...);
/* AscendC::DumpTensor: "DumpTensor: desc=D, addr=A, data_type=T, position=P,
 * dump_size=N" and "[v0, v1, ...]" as one sk_twin_printf text. kind: 0 float,
 * 1 signed, 2 unsigned integer, 3 half, 4 bfloat16; elem_bytes its size. */
void sk_twin_dump_tensor(uint32_t desc, uint64_t addr, const char* data_type, const char* position,
                         uint32_t dump_size, const void* data, uint32_t kind, uint32_t elem_bytes);

/* Chrome-trace spans on the calling worker; nest properly. */
void sk_twin_trace_begin(const char* name);
void sk_twin_trace_end(void);

/* ------------------------------------------------------ Ascend C data model
 * The hooks behind kernel_operator.h's TPipe/TQue/TBuf, LocalTensor,
 * GlobalTensor, DataCopy and vector instructions (src/ascendc.cc,
 * src/vector.cc). Every hook checks the hardware's rules and fails the
 * launch with a message naming the call and the values. */

/* Element types (SK_TWIN_DT_*). */
#define SK_TWIN_DT_U8 0u
#define SK_TWIN_DT_I8 1u
#define SK_TWIN_DT_U16 2u
#define SK_TWIN_DT_I16 3u
#define SK_TWIN_DT_HALF 4u
#define SK_TWIN_DT_BF16 5u
#define SK_TWIN_DT_U32 6u
#define SK_TWIN_DT_I32 7u
#define SK_TWIN_DT_F32 8u
#define SK_TWIN_DT_U64 9u
#define SK_TWIN_DT_I64 10u
#define SK_TWIN_DT_F64 11u
#define SK_TWIN_DT_COUNT 12u

/* A LocalTensor: bytes [addr, addr+bytes) of the worker's Unified Buffer,
 * inside buffer slot `buf` (0: none) as allocated at generation `gen`. */
typedef struct SkTwinLocalRef {
  uint32_t addr;
  uint32_t bytes;
  uint32_t buf;
  uint32_t gen;
} SkTwinLocalRef;

/* A GlobalTensor view: `base` and `size_bytes` as SetGlobalBuffer gave them
 * (size 0: unknown, unchecked), the view starting `offset_bytes` in. */
typedef struct SkTwinGlobalRef {
  uint8_t* base;
  uint64_t size_bytes;
  uint64_t offset_bytes;
} SkTwinGlobalRef;

/* Positions (AscendC::TPosition values the twin supports). */
#define SK_TWIN_POS_VECIN 9u
#define SK_TWIN_POS_VECOUT 10u
#define SK_TWIN_POS_VECCALC 11u

/* Pipes and queues. Objects are per worker; ids are returned by the hooks. */
uint32_t sk_twin_pipe_create(void* pipe);
void sk_twin_pipe_destroy(uint32_t pipe);
void sk_twin_pipe_reset(uint32_t pipe);
void* sk_twin_pipe_current(void);
/* kind 0: a queue (num buffers of len bytes, depth), 1: a TBuf (one of len bytes). */
uint32_t sk_twin_pipe_init_buffer(uint32_t pipe, uint32_t kind, uint32_t pos, uint32_t depth, uint32_t num,
                                  uint32_t len, uint32_t old_id);
/* TBufPool (TPipe/TBufPool::InitBufPool): a pool of len bytes in pos's memory carved out of `parent` (a pipe or
 * pool id), or over the range of pool `share` (non-zero); at most `buffers` buffers; returns the pool's pipe id, which
 * sk_twin_pipe_init_buffer takes like a pipe's. Reset checks that no tensor of the pool is outstanding. */
uint32_t sk_twin_pool_init(uint32_t parent, uint32_t pos, uint32_t len, uint32_t share, uint32_t buffers, void* object,
                           uint32_t old_id);
void sk_twin_pool_reset(uint32_t pool);
void sk_twin_que_alloc(uint32_t que, SkTwinLocalRef* out);
void sk_twin_que_enque(uint32_t que, const SkTwinLocalRef* t);
void sk_twin_que_deque(uint32_t que, SkTwinLocalRef* out);
void sk_twin_que_free(uint32_t que, const SkTwinLocalRef* t);
uint32_t sk_twin_que_count(uint32_t que, uint32_t what); /* 0: in queue, 1: free buffers */
/* TBuf::Get / GetWithOffset: elements of elem bytes at byte offset. */
void sk_twin_buf_get(uint32_t buf, uint64_t elems, uint32_t elem, uint64_t offset, uint32_t with_offset,
                     SkTwinLocalRef* out);

/* LocalTensor(TPosition pos, addr, tileSize) of static-tensor programming:
 * [addr, addr + bytes) of the Unified Buffer as a buffer of its own (pos:
 * AscendC::TPosition, a vector one); fails the launch when misaligned or past
 * the Unified Buffer. */
void sk_twin_local_static(uint32_t pos, uint64_t addr, uint64_t bytes, SkTwinLocalRef* out);
/* The tensor from a raw UB address (GetPhyAddr) to the end of the live
 * buffer holding it (the toolkit's *Impl forms take pointers); fails the
 * launch naming `call` when no live buffer holds it. */
void sk_twin_local_ref_at(uint64_t addr, const char* call, SkTwinLocalRef* out);
/* Element access: host memory for [byte_off, byte_off+bytes) of a tensor. */
void* sk_twin_local_at(const SkTwinLocalRef* t, uint64_t byte_off, uint64_t bytes, const char* call);
/* A LocalTensor view: operator[] (offset), SetSize (new size); both in bytes. */
void sk_twin_local_view(const SkTwinLocalRef* t, uint64_t byte_off, uint64_t new_bytes, uint32_t set_size,
                        SkTwinLocalRef* out);
/* A GlobalTensor element access outside its SetGlobalBuffer size. */
void sk_twin_global_oob(const SkTwinGlobalRef* g, uint64_t byte_off, uint64_t bytes, const char* call);

/* int4b_t (two elements a byte, element 2k in the low nibble): the bytes of `elems` elements, failing the
 * call when elems is odd; a refusal of an int4b_t form at run time; Cast int4b_t <-> half (to_int4: 1 for
 * half -> int4b_t). */
uint64_t sk_twin_int4_bytes(uint64_t elems, const char* call);
void sk_twin_int4_refuse(const char* call, const char* problem, const char* allowed);
void sk_twin_cast_int4(uint32_t to_int4, uint32_t round_mode, const SkTwinLocalRef* dst, const SkTwinLocalRef* src,
                       int64_t count);

/* DataCopy / DataCopyPad. kind: 0 count, 1 DataCopyParams, 2 DataCopyExtParams. */
typedef struct SkTwinCopy {
  uint32_t kind;
  uint32_t elem;     /* sizeof(T) */
  uint32_t dtype;    /* SK_TWIN_DT_* */
  uint64_t count;    /* kind 0 */
  uint32_t block_count;
  uint32_t block_len; /* kind 1: 32-byte blocks; kind 2: bytes */
  uint32_t src_stride;
  uint32_t dst_stride;
  uint32_t pad;      /* kind 2 GM->UB: DataCopyPadExtParams given */
  uint32_t is_pad;
  uint32_t left_padding;
  uint32_t right_padding;
  uint64_t pad_value; /* bits of a T */
} SkTwinCopy;
/* dir 0: GM -> UB, 1: UB -> GM, 2: UB -> UB (local_src). */
void sk_twin_data_copy(uint32_t dir, const SkTwinLocalRef* local, const SkTwinGlobalRef* global,
                       const SkTwinLocalRef* local_src, const SkTwinCopy* copy);

/* Vector instructions (count form). Scalars are passed as the bits of a T. */
#define SK_TWIN_V_ADD 0u
#define SK_TWIN_V_SUB 1u
#define SK_TWIN_V_MUL 2u
#define SK_TWIN_V_DIV 3u
#define SK_TWIN_V_MAX 4u
#define SK_TWIN_V_MIN 5u
#define SK_TWIN_V_ADDS 6u
#define SK_TWIN_V_MULS 7u
#define SK_TWIN_V_MAXS 8u
#define SK_TWIN_V_MINS 9u
#define SK_TWIN_V_EXP 10u
#define SK_TWIN_V_LN 11u
#define SK_TWIN_V_ABS 12u
#define SK_TWIN_V_SQRT 13u
#define SK_TWIN_V_RSQRT 14u
#define SK_TWIN_V_RECIPROCAL 15u
#define SK_TWIN_V_RELU 16u
#define SK_TWIN_V_LEAKY_RELU 17u
#define SK_TWIN_V_DUPLICATE 18u
#define SK_TWIN_V_REDUCE_SUM 19u
#define SK_TWIN_V_REDUCE_MAX 20u
#define SK_TWIN_V_REDUCE_MIN 21u
#define SK_TWIN_V_COUNT 22u
void sk_twin_vector(uint32_t op, uint32_t dtype, const SkTwinLocalRef* dst, const SkTwinLocalRef* src0,
                    const SkTwinLocalRef* src1, uint64_t scalar, int64_t count);
/* ReduceSum/ReduceMax/ReduceMin level 2: dst[0] (and dst[1] = index). */
void sk_twin_reduce(uint32_t op, uint32_t dtype, const SkTwinLocalRef* dst, const SkTwinLocalRef* src,
                    const SkTwinLocalRef* work, int64_t count, uint32_t cal_index);
/* Cast with AscendC::RoundMode's value. */
void sk_twin_cast(uint32_t dst_dtype, uint32_t src_dtype, uint32_t round_mode, const SkTwinLocalRef* dst,
                  const SkTwinLocalRef* src, int64_t count);
/* Compare (CMPMODE value) into a bit mask; scalar form when src1 is NULL. */
void sk_twin_compare(uint32_t dtype, uint32_t cmp_mode, const SkTwinLocalRef* dst, const SkTwinLocalRef* src0,
                     const SkTwinLocalRef* src1, uint64_t scalar, int64_t count);
/* Select (SELMODE value); src1 NULL: the scalar (mode 1). */
void sk_twin_select(uint32_t dtype, uint32_t sel_mode, const SkTwinLocalRef* dst, const SkTwinLocalRef* mask,
                    const SkTwinLocalRef* src0, const SkTwinLocalRef* src1, uint64_t scalar, int64_t count);

/* Counter indices (sk_twin_counter_name gives their names). */
#define SK_TWIN_COUNTER_FFTS_SET_MODE0 0u
#define SK_TWIN_COUNTER_FFTS_SET_MODE1 1u
#define SK_TWIN_COUNTER_FFTS_SET_MODE2 2u
#define SK_TWIN_COUNTER_WAIT_FLAG 3u
#define SK_TWIN_COUNTER_SYNC_ALL_MIX 4u
#define SK_TWIN_COUNTER_SYNC_ALL_AIV 5u
#define SK_TWIN_COUNTER_SET_NEXT_TASK_START 6u
#define SK_TWIN_COUNTER_WAIT_PRE_TASK_END 7u
#define SK_TWIN_COUNTER_FEED_SYNC_ALL_PUBLISH 8u
#define SK_TWIN_COUNTER_FEED_SYNC_ALL_REPLAY 9u
#define SK_TWIN_COUNTER_PIPE_BARRIER 10u
#define SK_TWIN_COUNTER_PIPE_FLAG 11u
#define SK_TWIN_COUNTER_PRELOAD 12u
#define SK_TWIN_COUNTER_PRELOAD_UNITS 13u
#define SK_TWIN_COUNTER_DCCI 14u
#define SK_TWIN_COUNTER_SET_FFTS_BASE 15u
#define SK_TWIN_COUNTER_COUNT 16u

/* The cube data path (src/cube.cc), p: the parameter struct's fields in documentation order.
 * nd2nz p[8]: ndNum nValue dValue srcNdMatrixStride srcDValue dstNzC0Stride dstNzNStride dstNzMatrixStride.
 * load2d p[5]: startIndex repeatTimes srcStride dstGap ifTranspose.
 * fixpipe p[8]: nSize mSize srcStride dstStride quantPre ndNum srcNdStride dstNdStride (NZ2ND). */
void sk_twin_cube_nd2nz(const SkTwinLocalRef* dst, const SkTwinGlobalRef* src, uint32_t dtype, const uint32_t* p);
void sk_twin_cube_load2d(const SkTwinLocalRef* dst, const SkTwinLocalRef* src, uint32_t dtype, const uint32_t* p);
void sk_twin_cube_fill(const SkTwinLocalRef* dst, uint32_t elem, uint64_t bits, uint32_t repeat, uint32_t blocks,
                       uint32_t gap);
void sk_twin_cube_mmad(const SkTwinLocalRef* c, const SkTwinLocalRef* a, const SkTwinLocalRef* b, uint32_t in_dtype,
                       uint32_t out_dtype, uint32_t m, uint32_t n, uint32_t k, uint32_t accumulate);
void sk_twin_cube_fixpipe(const SkTwinGlobalRef* dst, const SkTwinLocalRef* src, uint32_t src_dtype,
                          uint32_t dst_dtype, const uint32_t* p);

#ifdef __cplusplus
}
#endif

#endif /* SK_TWIN_H_ */
