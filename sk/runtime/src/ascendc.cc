// The Ascend C memory model of one worker: TPipe/TQue/TBuf bookkeeping in
// its Unified Buffer, LocalTensor/GlobalTensor access and DataCopy /
// DataCopyPad, each with the hardware's rules checked (a broken rule fails
// the launch through FailRule with the call and its values).
#include "ascendc.h"
#include "sk_twin_bias_hooks.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace sk_twin {
namespace {

constexpr uint32_t kMaxBuffers = 64;  // buffers one kernel may hold (InitBuffer)
constexpr uint32_t kMaxBlockCount = 4095;
constexpr uint32_t kMaxPadBlockLen = 2097151;

const char* PosName(uint32_t pos) {
  static const char* const kCube[] = {"GM", "A1", "A2", "B1", "B2", "C1", "C2", "CO1", "CO2"};
  switch (pos) {
    case SK_TWIN_POS_VECIN: return "VECIN";
    case SK_TWIN_POS_VECOUT: return "VECOUT";
    case SK_TWIN_POS_VECCALC: return "VECCALC";
    case 13: return "TSCM";
    default: return pos < 9 ? kCube[pos] : "?";
  }
}

// The local memory of a position (AscendC::TPosition values), kMemCount where the twin has none.
uint32_t PosMem(uint32_t pos) {
  switch (pos) {
    case SK_TWIN_POS_VECIN:
    case SK_TWIN_POS_VECOUT:
    case SK_TWIN_POS_VECCALC: return kMemUb;
    case 1: case 3: case 5: return kMemL1;  // A1, B1, C1
    case 13: return kMemL1;                 // TSCM: the cube's L1 on Atlas A2/A3 (Matmul A/B kept there)
    case 2: return kMemL0a;                 // A2
    case 4: return kMemL0b;                 // B2
    case 6: return kMemBt;                  // C2: the bias table
    case 7: return kMemL0c;                 // CO1
    default: return kMemCount;              // GM, CO2
  }
}

std::string Range(uint64_t begin, uint64_t end) { return "[" + Num(begin) + ", " + Num(end) + ")"; }

uint32_t Align32(uint64_t v) { return static_cast<uint32_t>((v + kUbBlock - 1) / kUbBlock * kUbBlock); }

AscendState& State(const char* hook) { return CurrentWorker(hook).ascendc; }

std::string ObjectText(const AscendState& st, uint32_t id) {
  if (id == 0 || id >= st.objects.size()) return "an uninitialised queue";
  const UbObject& o = st.objects[id];
  if (o.kind == 1) return "TBuf<" + std::string(PosName(o.pos)) + "> of " + Num(o.len) + " bytes";
  return "TQue<" + std::string(PosName(o.pos)) + ", depth " + Num(o.depth) + "> with " + Num(o.slots.size()) +
         " buffer(s) of " + Num(o.len) + " bytes";
}

UbObject& Object(AscendState& st, uint32_t id, const std::string& call) {
  if (id == 0 || id >= st.objects.size()) {
    FailRule(call, "the queue/buffer was never given memory", "call TPipe::InitBuffer on it first");
  }
  UbObject& o = st.objects[id];
  if (!o.live) {
    FailRule(call, "its TPipe was reset or destroyed, which released " + ObjectText(st, id),
             "call TPipe::InitBuffer again after TPipe::Reset");
  }
  return o;
}

PipeRec& Pipe(AscendState& st, uint32_t id, const std::string& call) {
  if (id == 0 || id >= st.pipes.size() || !st.pipes[id].live) {
    FailRule(call, "the TPipe is not alive (destroyed, or created on another core)", "use the TPipe of this kernel");
  }
  return st.pipes[id];
}

// Ends every tensor and object of a pipe; `why` is what later uses report.
void ReleasePipe(AscendState& st, PipeRec& pipe, const char* why) {
  // The TBufPools carved out of this pipe (or pool) end with it.
  const std::vector<uint32_t> pools = std::move(pipe.pools);
  pipe.pools.clear();
  for (uint32_t child : pools) {
    ReleasePipe(st, st.pipes[child], why);
    st.pipes[child].live = false;
  }
  for (uint32_t id : pipe.objects) {
    UbObject& o = st.objects[id];
    o.live = false;
    o.fifo.clear();
    for (uint32_t s : o.slots) {
      st.slots[s].gen += 1;
      st.slots[s].state = SlotState::kFree;
      st.slots[s].died_by = why;
    }
  }
  pipe.objects.clear();
  pipe.top = pipe.base;
  st.ub_top = pipe.base;
  for (uint32_t m = kMemL1; m < kMemCount; ++m) {
    pipe.cube_top[m] = pipe.cube_base[m];
    st.cube_top[m] = pipe.cube_base[m];
  }
}

std::string PoolText(const PipeRec& p) {
  return "TBufPool of " + Num(p.pool_end - p.pool_start) + " bytes at " + MemName(p.pool_mem) + " " +
         Range(p.pool_start, p.pool_end);
}

uint32_t PoolBuffers(const AscendState& st, const PipeRec& p) {
  uint32_t n = 0;
  for (uint32_t id : p.objects) n += static_cast<uint32_t>(st.objects[id].slots.size());
  return n;
}

// A TBufPool gives its queues and buffers `total` more bytes (`num` buffers) of memory `mem` only inside its range,
// in its own physical memory, and no more buffers than its bufIDSize.
void CheckPoolRoom(const AscendState& st, const PipeRec& p, const std::string& call, uint32_t mem, uint64_t total,
                   uint32_t num) {
  if (mem != p.pool_mem) {
    FailRule(call, std::string("the buffer is in ") + MemName(mem) + ", this " + PoolText(p) + " is in " +
                       MemName(p.pool_mem),
             "queues and buffers of a TBufPool in the pool's own physical memory");
  }
  const uint64_t top = mem == kMemUb ? p.top : p.cube_top[mem];
  if (top + total > p.pool_end) {
    FailRule(call,
             "needs " + Num(total) + " bytes at " + MemName(mem) + " offset " + Num(top) + ", but this " + PoolText(p) +
                 " has only " + Num(p.pool_end - top) + " bytes left",
             "shrink the buffers, or give the pool more bytes in InitBufPool");
  }
  const uint32_t held = PoolBuffers(st, p);
  if (held + num > p.pool_buffers) {
    FailRule(call, "this " + PoolText(p) + " would hold " + Num(held + num) + " buffers",
             "at most bufIDSize = " + Num(p.pool_buffers) + " (TBufPool's second template argument, default 4, at most 16)");
  }
}

std::string TensorText(const SkTwinLocalRef& t) {
  return "the tensor at " + std::string(MemName(State("LocalTensor").slots[t.buf].mem)) + " " +
         Range(t.addr, uint64_t{t.addr} + t.bytes);
}

// The slot of a tensor that must be alive and belong to queue `que`.
UbSlot& OwnedSlot(AscendState& st, uint32_t que, const SkTwinLocalRef& t, const std::string& call) {
  if (t.buf == 0 || t.buf >= st.slots.size()) {
    FailRule(call, "the LocalTensor was never allocated (default-constructed)",
             "pass a tensor this queue's AllocTensor or DeQue returned");
  }
  UbSlot& s = st.slots[t.buf];
  if (s.gen != t.gen) {
    FailRule(call, TensorText(t) + " was already released by " + s.died_by,
             "each AllocTensor is matched by exactly one FreeTensor; do not use a tensor after FreeTensor");
  }
  if (s.owner != que) {
    FailRule(call, TensorText(t) + " belongs to " + ObjectText(st, s.owner) + ", not to this " + ObjectText(st, que),
             "EnQue/FreeTensor a tensor on the queue that allocated it");
  }
  return s;
}

void CopyFail(const std::string& call, const std::string& problem, const std::string& allowed) {
  FailRule(call, problem, allowed);
}

std::string CopyCall(uint32_t dir, const SkTwinCopy& c) {
  const char* way = dir == 0 ? "GM->UB" : dir == 1 ? "UB->GM" : "UB->UB";
  std::string t = DtypeName(c.dtype);
  if (c.kind == 0) return "DataCopy<" + t + ">(" + way + ", count " + Num(c.count) + ")";
  if (c.kind == 1) {
    return "DataCopy<" + t + ">(" + way + ", DataCopyParams{blockCount " + Num(c.block_count) + ", blockLen " +
           Num(c.block_len) + " x 32 B, srcStride " + Num(c.src_stride) + ", dstStride " + Num(c.dst_stride) + "})";
  }
  std::string s = "DataCopyPad<" + t + ">(" + way + ", blockCount " + Num(c.block_count) + ", blockLen " +
                  Num(c.block_len) + " B, srcStride " + Num(c.src_stride) + ", dstStride " + Num(c.dst_stride);
  if (c.pad) {
    s += ", isPad " + Num(c.is_pad) + ", leftPadding " + Num(c.left_padding) + ", rightPadding " +
         Num(c.right_padding);
  }
  return s + ")";
}

// GM bytes [begin, end) of a view, checked against SetGlobalBuffer's size.
uint8_t* GlobalSpan(const SkTwinGlobalRef& g, uint64_t begin, uint64_t end, uint32_t elem, bool aligned,
                    const std::string& call) {
  if (g.base == nullptr) {
    FailRule(call, "the GlobalTensor has no memory", "call SetGlobalBuffer(ptr, size) before copying");
  }
  const uintptr_t addr = reinterpret_cast<uintptr_t>(g.base) + g.offset_bytes + begin;
  if (aligned && addr % elem != 0) {
    FailRule(call, "the GM address " + HexAddr(addr) + " is not aligned to the " + Num(elem) + "-byte element",
             "DataCopy needs GM addresses aligned to sizeof(T); DataCopyPad takes any address");
  }
  if (g.size_bytes != 0 && g.offset_bytes + end > g.size_bytes) {
    FailRule(call,
             "GM bytes " + Range(g.offset_bytes + begin, g.offset_bytes + end) +
                 " lie outside the GlobalTensor, whose SetGlobalBuffer size is " + Num(g.size_bytes / elem) +
                 " elements (" + Num(g.size_bytes) + " bytes)",
             "stay within the size given to SetGlobalBuffer");
  }
  return g.base + g.offset_bytes + begin;
}

// One block of a copy: GM/UB offsets (relative to the views) and length.
struct Block {
  uint64_t gm;
  uint64_t ub;
  uint64_t len;
};

}  // namespace

std::string Num(uint64_t v) { return std::to_string(v); }

uint32_t DtypeSize(uint32_t dtype) {
  static const uint32_t kSizes[SK_TWIN_DT_COUNT] = {1, 1, 2, 2, 2, 2, 4, 4, 4, 8, 8, 8};
  return dtype < SK_TWIN_DT_COUNT ? kSizes[dtype] : 1;
}

const char* DtypeName(uint32_t dtype) {
  static const char* const kNames[SK_TWIN_DT_COUNT] = {"uint8_t", "int8_t",   "uint16_t", "int16_t",
                                                       "half",    "bfloat16_t", "uint32_t", "int32_t",
                                                       "float",   "uint64_t", "int64_t",  "double"};
  return dtype < SK_TWIN_DT_COUNT ? kNames[dtype] : "?";
}

bool DtypeIsFloat(uint32_t dtype) {
  return dtype == SK_TWIN_DT_HALF || dtype == SK_TWIN_DT_BF16 || dtype == SK_TWIN_DT_F32 || dtype == SK_TWIN_DT_F64;
}

bool DtypeIsSigned(uint32_t dtype) {
  return dtype == SK_TWIN_DT_I8 || dtype == SK_TWIN_DT_I16 || dtype == SK_TWIN_DT_I32 || dtype == SK_TWIN_DT_I64;
}

uint8_t* LocalAccess(const SkTwinLocalRef& t, uint64_t off, uint64_t bytes, const std::string& call,
                     const char* role) {
  Worker& w = CurrentWorker("LocalTensor access");
  AscendState& st = w.ascendc;
  if (t.buf == 0 || t.buf >= st.slots.size()) {
    FailRule(call, std::string(role) + " is a LocalTensor that was never allocated (default-constructed)",
             "get tensors from TQue::AllocTensor, TQue::DeQue or TBuf::Get");
  }
  const UbSlot& s = st.slots[t.buf];
  if (s.gen != t.gen) {
    FailRule(call, std::string(role) + " (" + MemName(s.mem) + " " + Range(t.addr, uint64_t{t.addr} + t.bytes) + ") is used after " +
                       s.died_by + " released it",
             "a tensor is valid from AllocTensor/DeQue until its FreeTensor; allocate a new one");
  }
  if (s.mem == kMemUb && w.type != CoreType::kAiv) {
    FailRule(call, std::string(role) + " lives in the Unified Buffer, which an AIC does not have",
             "run vector code under ASCEND_IS_AIV");
  }
  if (s.mem != kMemUb && w.type != CoreType::kAic) {
    FailRule(call, std::string(role) + " lives in the cube's " + MemName(s.mem) + ", which an AIV does not have",
             "run cube code under ASCEND_IS_AIC");
  }
  const uint64_t begin = uint64_t{t.addr} + off;
  const uint64_t end = begin + bytes;
  if (begin < s.addr || end > uint64_t{s.addr} + s.bytes) {
    FailRule(call,
             std::string(role) + " is accessed at " + MemName(s.mem) + " " + Range(begin, end) + ", outside its buffer " +
                 Range(s.addr, uint64_t{s.addr} + s.bytes) + " (" + ObjectText(st, s.owner) + ")",
             "stay within the bytes TPipe::InitBuffer gave the buffer");
  }
  return s.mem == kMemUb ? UbArena(w) + begin : CubeArena(w, s.mem) + begin;
}

const char* MemName(uint32_t mem) {
  static const char* const kNames[] = {"UB", "L1", "L0A", "L0B", "L0C", "BT"};
  return mem < kMemCount ? kNames[mem] : "?";
}

uint64_t MemBytes(uint32_t mem) {
  static const uint64_t kBytes[] = {kUbBytes, kL1Bytes, kL0aBytes, kL0bBytes, kL0cBytes, kBtBytes};
  return mem < kMemCount ? kBytes[mem] : 0;
}

uint8_t* CubeArena(Worker& w, uint32_t mem) {
  std::vector<uint8_t>& arena = mem == kMemL1 ? w.l1 : w.l0[mem - kMemL0a];
  // Local memory starts with garbage on hardware (see UbArena).
  if (arena.empty()) arena.assign(MemBytes(mem), 0xcd);
  return arena.data();
}

uint32_t LocalMemOf(const SkTwinLocalRef& t) {
  const AscendState& st = CurrentWorker("LocalTensor").ascendc;
  return t.buf == 0 || t.buf >= st.slots.size() ? kMemCount : st.slots[t.buf].mem;
}

void CheckLocalAlign(const SkTwinLocalRef& t, uint32_t align, const std::string& call, const char* role) {
  if (t.addr % align != 0) {
    FailRule(call, std::string(role) + " starts at UB address " + Num(t.addr) + ", not a multiple of " + Num(align),
             align == kUbBlock ? "UB operands start on a 32-byte boundary: use offsets (tensor[i]) that are "
                                 "multiples of 32 bytes"
                               : "align the operand to its element size");
  }
}

}  // namespace sk_twin

using sk_twin::AscendState;
using sk_twin::FailRule;
using sk_twin::Num;
using sk_twin::PipeRec;
using sk_twin::SlotState;
using sk_twin::UbObject;
using sk_twin::UbSlot;

extern "C" {

void sk_twin_local_static(uint32_t pos, uint64_t addr, uint64_t bytes, SkTwinLocalRef* out) {
  const std::string call = "LocalTensor(TPosition, addr " + Num(addr) + ", " + Num(bytes) + " bytes)";
  AscendState& st = sk_twin::State("LocalTensor(TPosition, addr, tileSize)");
  if (pos < 9 || pos > 11) {  // TPosition VECIN 9, VECOUT 10, VECCALC 11: the Unified Buffer
    FailRule(call, "TPosition " + Num(pos) + " is not a vector position",
             "the twin places static tensors in the Unified Buffer (VECIN, VECOUT, VECCALC)");
  }
  if (addr % sk_twin::kUbBlock != 0) FailRule(call, "the address is not 32-byte aligned", "align addr to 32 bytes");
  if (addr + bytes > sk_twin::kUbBytes) {
    FailRule(call, "the tensor ends at " + Num(addr + bytes) + ", past the Unified Buffer (" + Num(sk_twin::kUbBytes) +
                       " bytes)",
             "addr + tileSize * sizeof(T) within the Unified Buffer");
  }
  // A static tensor is its own fixed buffer (owned by no queue); the same range again reuses it.
  for (uint32_t i = 1; i < st.slots.size(); ++i) {
    const UbSlot& s = st.slots[i];
    if (s.owner == 0 && s.state == SlotState::kFixed && s.addr == addr && s.bytes == bytes) {
      *out = SkTwinLocalRef{static_cast<uint32_t>(addr), static_cast<uint32_t>(bytes), i, s.gen};
      return;
    }
  }
  UbSlot s;
  s.addr = static_cast<uint32_t>(addr);
  s.bytes = static_cast<uint32_t>(bytes);
  s.state = SlotState::kFixed;
  s.owner = 0;
  st.slots.push_back(s);
  *out = SkTwinLocalRef{s.addr, s.bytes, static_cast<uint32_t>(st.slots.size() - 1), s.gen};
}

void sk_twin_local_ref_at(uint64_t addr, const char* call, SkTwinLocalRef* out) {
  AscendState& st = sk_twin::State(call);
  for (uint32_t i = 1; i < st.slots.size(); ++i) {
    const UbSlot& s = st.slots[i];
    if (s.state != SlotState::kFree && addr >= s.addr && addr < uint64_t{s.addr} + s.bytes) {
      *out = SkTwinLocalRef{static_cast<uint32_t>(addr), static_cast<uint32_t>(uint64_t{s.addr} + s.bytes - addr), i,
                            s.gen};
      return;
    }
  }
  FailRule(call, "UB address " + Num(addr) + " is not inside a live buffer",
           "pass an address (GetPhyAddr) inside a tensor from AllocTensor, DeQue or TBuf::Get");
}

uint32_t sk_twin_pipe_create(void* pipe) {
  AscendState& st = sk_twin::State("TPipe");
  PipeRec rec;
  rec.object = pipe;
  rec.live = true;
  rec.base = st.ub_top;
  rec.top = st.ub_top;
  for (uint32_t m = sk_twin::kMemL1; m < sk_twin::kMemCount; ++m) {
    rec.cube_base[m] = st.cube_top[m];
    rec.cube_top[m] = st.cube_top[m];
  }
  st.pipes.push_back(rec);
  return static_cast<uint32_t>(st.pipes.size() - 1);
}

// Runs in destructors, also while a failed launch unwinds: never fails.
void sk_twin_pipe_destroy(uint32_t pipe) {
  AscendState& st = sk_twin::State("~TPipe");
  if (pipe == 0 || pipe >= st.pipes.size() || !st.pipes[pipe].live) return;
  sk_twin::ReleasePipe(st, st.pipes[pipe], "the TPipe's destruction");
  st.pipes[pipe].live = false;
}

void sk_twin_pipe_reset(uint32_t pipe) {
  AscendState& st = sk_twin::State("TPipe::Reset");
  sk_twin::ReleasePipe(st, sk_twin::Pipe(st, pipe, "TPipe::Reset"), "TPipe::Reset");
}

void* sk_twin_pipe_current(void) {
  AscendState& st = sk_twin::State("GetTPipePtr");
  for (size_t i = st.pipes.size(); i-- > 1;) {
    if (st.pipes[i].live && !st.pipes[i].pool) return st.pipes[i].object;
  }
  return nullptr;
}

uint32_t sk_twin_pipe_init_buffer(uint32_t pipe, uint32_t kind, uint32_t pos, uint32_t depth, uint32_t num,
                                  uint32_t len, uint32_t old_id) {
  AscendState& st = sk_twin::State("TPipe::InitBuffer");
  const std::string call = kind == 0 ? "TPipe::InitBuffer(que, num " + Num(num) + ", len " + Num(len) + ")"
                                     : "TPipe::InitBuffer(buf, len " + Num(len) + ")";
  PipeRec& p = sk_twin::Pipe(st, pipe, call);
  const uint32_t mem = sk_twin::PosMem(pos);
  if (mem == sk_twin::kMemCount) {
    FailRule(call,
             std::string(kind == 0 ? "a TQue" : "a TBuf") + " in TPosition::" + sk_twin::PosName(pos) +
                 ", which the CPU twin does not implement",
             "queues and buffers in VECIN, VECOUT, VECCALC (UB), A1, B1, C1, TSCM (L1), A2 (L0A), B2 (L0B), CO1 (L0C) or C2 (the bias table)");
  }
  if (old_id != 0 && old_id < st.objects.size() && st.objects[old_id].live) {
    FailRule(call, "this " + sk_twin::ObjectText(st, old_id) + " already has its memory",
             "InitBuffer once per queue/buffer; TPipe::Reset releases everything for a new InitBuffer");
  }
  if (kind == 0 && num == 0) FailRule(call, "num is 0", "a queue needs at least one buffer (2 for double buffering)");
  if (len == 0) FailRule(call, "len is 0 bytes", "give each buffer the bytes of its largest tensor");
  const uint32_t aligned = sk_twin::Align32(len);
  const uint64_t total = uint64_t{aligned} * num;
  if (p.pool) sk_twin::CheckPoolRoom(st, p, "TBufPool::" + call.substr(std::string("TPipe::").size()), mem, total, num);
  if (mem != sk_twin::kMemUb) {
    const uint64_t cap = sk_twin::MemBytes(mem);
    if (p.cube_top[mem] + total > cap) {
      FailRule(call,
               "needs " + Num(total) + " bytes in TPosition::" + sk_twin::PosName(pos) + " at " +
                   sk_twin::MemName(mem) + " offset " + Num(p.cube_top[mem]) + ", but the " + sk_twin::MemName(mem) +
                   " is " + Num(cap) + " bytes: only " + Num(cap - p.cube_top[mem]) + " bytes are left",
               "shrink the tiles or the number of buffers so that all InitBuffer calls in " +
                   std::string(sk_twin::MemName(mem)) + " fit in " + Num(cap) + " bytes");
    }
  } else if (p.top + total > sk_twin::kUbBytes) {
    std::string held;
    for (uint32_t id : p.objects) held += (held.empty() ? "" : ", ") + sk_twin::ObjectText(st, id);
    FailRule(call,
             "needs " + Num(total) + " bytes (" + Num(num) + " x " + Num(aligned) + ", len rounded up to 32) at UB offset " +
                 Num(p.top) + ", but the Unified Buffer of the vector core is " + Num(sk_twin::kUbBytes) +
                 " bytes (192 KiB on 910B/910_93): only " + Num(sk_twin::kUbBytes - p.top) +
                 " bytes are left" + (held.empty() ? "" : "; this TPipe already holds " + held),
             "shrink the tiles or the number of buffers so that all InitBuffer calls fit in 196608 bytes");
  }
  uint32_t buffers = 0;
  for (uint32_t id : p.objects) buffers += static_cast<uint32_t>(st.objects[id].slots.size());
  if (buffers + num > sk_twin::kMaxBuffers) {
    FailRule(call, "the kernel would hold " + Num(buffers + num) + " buffers",
             "at most " + Num(sk_twin::kMaxBuffers) + " buffers per kernel");
  }
  UbObject o;
  o.pipe = pipe;
  o.kind = kind;
  o.pos = pos;
  o.depth = depth;
  o.len = aligned;
  o.live = true;
  const uint32_t id = static_cast<uint32_t>(st.objects.size());
  for (uint32_t i = 0; i < num; ++i) {
    UbSlot s;
    s.addr = (mem == sk_twin::kMemUb ? p.top : p.cube_top[mem]) + i * aligned;
    s.mem = mem;
    s.bytes = aligned;
    s.state = kind == 1 ? SlotState::kFixed : SlotState::kFree;
    s.owner = id;
    o.slots.push_back(static_cast<uint32_t>(st.slots.size()));
    st.slots.push_back(s);
  }
  st.objects.push_back(std::move(o));
  p.objects.push_back(id);
  if (mem == sk_twin::kMemUb) {
    p.top += static_cast<uint32_t>(total);
    st.ub_top = std::max(st.ub_top, p.top);
  } else {
    p.cube_top[mem] += static_cast<uint32_t>(total);
    st.cube_top[mem] = std::max(st.cube_top[mem], p.cube_top[mem]);
  }
  return id;
}

void sk_twin_que_alloc(uint32_t que, SkTwinLocalRef* out) {
  AscendState& st = sk_twin::State("TQue::AllocTensor");
  const std::string call = "TQue::AllocTensor";
  UbObject& o = sk_twin::Object(st, que, call);
  const uint32_t n = static_cast<uint32_t>(o.slots.size());
  for (uint32_t k = 0; k < n; ++k) {
    const uint32_t i = (o.next + k) % n;
    UbSlot& s = st.slots[o.slots[i]];
    if (s.state != SlotState::kFree) continue;
    s.state = SlotState::kAllocated;
    o.next = (i + 1) % n;
    *out = SkTwinLocalRef{s.addr, s.bytes, o.slots[i], s.gen};
    return;
  }
  FailRule(call,
           "all " + Num(n) + " buffer(s) of the " + sk_twin::ObjectText(st, que) +
               " are in use: this is AllocTensor number " + Num(n + 1) + " without a FreeTensor in between",
           "a queue hands out at most `num` tensors at a time (InitBuffer(que, num, len)); FreeTensor one first, "
           "or give the queue more buffers");
}

void sk_twin_que_enque(uint32_t que, const SkTwinLocalRef* t) {
  AscendState& st = sk_twin::State("TQue::EnQue");
  const std::string call = "TQue::EnQue";
  UbObject& o = sk_twin::Object(st, que, call);
  UbSlot& s = sk_twin::OwnedSlot(st, que, *t, call);
  if (s.state == SlotState::kQueued) {
    FailRule(call, sk_twin::TensorText(*t) + " is already in the queue", "EnQue a tensor once, then DeQue it");
  }
  if (o.depth != 0 && o.fifo.size() >= o.depth) {
    FailRule(call,
             "the " + sk_twin::ObjectText(st, que) + " already holds " + Num(o.fifo.size()) +
                 " tensor(s), its depth",
             "DeQue before the next EnQue, or declare TQue<pos, N> with N >= the EnQue calls in a row");
  }
  s.state = SlotState::kQueued;
  o.fifo.push_back(*t);
}

void sk_twin_que_deque(uint32_t que, SkTwinLocalRef* out) {
  AscendState& st = sk_twin::State("TQue::DeQue");
  const std::string call = "TQue::DeQue";
  UbObject& o = sk_twin::Object(st, que, call);
  if (o.fifo.empty()) {
    FailRule(call, "the " + sk_twin::ObjectText(st, que) + " is empty: every EnQue'd tensor was already taken",
             "DeQue exactly once per EnQue");
  }
  *out = o.fifo.front();
  o.fifo.pop_front();
  st.slots[out->buf].state = SlotState::kAllocated;
}

void sk_twin_que_free(uint32_t que, const SkTwinLocalRef* t) {
  AscendState& st = sk_twin::State("TQue::FreeTensor");
  const std::string call = "TQue::FreeTensor";
  sk_twin::Object(st, que, call);
  UbSlot& s = sk_twin::OwnedSlot(st, que, *t, call);
  if (s.state == SlotState::kQueued) {
    FailRule(call, sk_twin::TensorText(*t) + " is still in the queue", "DeQue it before FreeTensor");
  }
  s.state = SlotState::kFree;
  s.gen += 1;
  s.died_by = "FreeTensor";
}

uint32_t sk_twin_que_count(uint32_t que, uint32_t what) {
  AscendState& st = sk_twin::State("TQue");
  UbObject& o = sk_twin::Object(st, que, what == 0 ? "TQue::GetTensorCountInQue" : "TQue::HasIdleBuffer");
  if (what == 0) return static_cast<uint32_t>(o.fifo.size());
  uint32_t idle = 0;
  for (uint32_t s : o.slots) idle += st.slots[s].state == SlotState::kFree ? 1 : 0;
  return idle;
}

void sk_twin_buf_get(uint32_t buf, uint64_t elems, uint32_t elem, uint64_t offset, uint32_t with_offset,
                     SkTwinLocalRef* out) {
  AscendState& st = sk_twin::State("TBuf::Get");
  const bool all = elems == ~uint64_t{0};
  const std::string call = with_offset ? "TBuf::GetWithOffset(size " + Num(elems) + ", bufOffset " + Num(offset) + ")"
                           : all       ? std::string("TBuf::Get()")
                                       : "TBuf::Get(len " + Num(elems) + ")";
  UbObject& o = sk_twin::Object(st, buf, call);
  if (offset % sk_twin::kUbBlock != 0) {
    FailRule(call, "bufOffset " + Num(offset) + " is not a multiple of 32 bytes",
             "GetWithOffset takes a 32-byte aligned byte offset");
  }
  const uint64_t bytes = all ? (o.len - o.len % elem) : elems * elem;
  if (offset + bytes > o.len) {
    FailRule(call,
             Num(elems) + " elements of " + Num(elem) + " bytes at offset " + Num(offset) + " need " +
                 Num(offset + bytes) + " bytes, but the " + sk_twin::ObjectText(st, buf) + " has " + Num(o.len),
             "size * sizeof(T) + bufOffset must not exceed the TBuf's InitBuffer length");
  }
  const UbSlot& s = st.slots[o.slots[0]];
  *out = SkTwinLocalRef{static_cast<uint32_t>(s.addr + offset), static_cast<uint32_t>(bytes), o.slots[0], s.gen};
}

void* sk_twin_local_at(const SkTwinLocalRef* t, uint64_t byte_off, uint64_t bytes, const char* call) {
  return sk_twin::LocalAccess(*t, byte_off, bytes, call, "the tensor");
}

void sk_twin_local_view(const SkTwinLocalRef* t, uint64_t byte_off, uint64_t new_bytes, uint32_t set_size,
                        SkTwinLocalRef* out) {
  const std::string call = set_size ? "LocalTensor::SetSize(" + Num(new_bytes) + " bytes)"
                                    : "LocalTensor::operator[](byte offset " + Num(byte_off) + ")";
  // A view needs a live tensor; its range is checked against the buffer.
  sk_twin::LocalAccess(*t, byte_off, set_size ? new_bytes : 0, call, "the tensor");
  SkTwinLocalRef r = *t;
  r.addr = static_cast<uint32_t>(t->addr + byte_off);
  r.bytes = static_cast<uint32_t>(set_size ? new_bytes : (t->bytes > byte_off ? t->bytes - byte_off : 0));
  *out = r;
}

void sk_twin_global_oob(const SkTwinGlobalRef* g, uint64_t byte_off, uint64_t bytes, const char* call) {
  const uint64_t elem = bytes == 0 ? 1 : bytes;
  FailRule(call,
           "element " + Num(byte_off / elem) + " (GM byte offset " + Num(byte_off) +
               ") is outside the GlobalTensor, whose SetGlobalBuffer size is " + Num(g->size_bytes / elem) +
               " elements",
           "stay within the size given to SetGlobalBuffer");
}

void sk_twin_data_copy(uint32_t dir, const SkTwinLocalRef* local, const SkTwinGlobalRef* global,
                       const SkTwinLocalRef* local_src, const SkTwinCopy* copy) {
  const AscendState& st = sk_twin::CurrentWorker("DataCopy").ascendc;
  const SkTwinCopy& c = *copy;
  if (dir == 2 && c.kind != 2 && sk_twin::LocalMemOf(*local) == sk_twin::kMemBt) {
    // Into the bias table: its own units and rules (src/cube.cc).
    sk_twin_cube_copy_bt(local, c.dtype, local_src, c.dtype, c.kind, c.count, c.block_count, c.block_len,
                         c.src_stride, c.dst_stride);
    return;
  }
  const std::string call = sk_twin::CopyCall(dir, c);
  const uint32_t e = c.elem;
  const char* ub_role = dir == 1 ? "src" : "dst";
  sk_twin::CheckLocalAlign(*local, sk_twin::kUbBlock, call, ub_role);
  if (dir == 2) sk_twin::CheckLocalAlign(*local_src, sk_twin::kUbBlock, call, "src");

  // The blocks: offsets on the GM (or UB source) side and the UB side.
  std::vector<sk_twin::Block> blocks;
  // GM->UB padding (kind 2): per block, left/right pad and the 32-byte span.
  uint64_t left = 0, right = 0, ub_span = 0;
  if (c.kind == 0) {
    const uint64_t bytes = c.count * e;
    if (bytes % sk_twin::kUbBlock != 0) {
      sk_twin::CopyFail(call,
                        "count " + Num(c.count) + " x " + Num(e) + " bytes = " + Num(bytes) +
                            " bytes is not a multiple of 32",
                        "DataCopy moves whole 32-byte blocks: count must be a multiple of " + Num(32 / e) +
                            " for " + sk_twin::DtypeName(c.dtype) + "; use DataCopyPad for a ragged tail");
    }
    if (bytes != 0) blocks.push_back({0, 0, bytes});
  } else if (c.kind == 1) {
    if (c.block_count > sk_twin::kMaxBlockCount) {
      sk_twin::CopyFail(call, "blockCount " + Num(c.block_count) + " is out of range", "blockCount is 0..4095");
    }
    const uint64_t len = uint64_t{c.block_len} * sk_twin::kUbBlock;
    if (len != 0) {
      for (uint64_t i = 0; i < c.block_count; ++i) {
        const uint64_t src = i * (len + uint64_t{c.src_stride} * sk_twin::kUbBlock);
        const uint64_t dst = i * (len + uint64_t{c.dst_stride} * sk_twin::kUbBlock);
        // sk_twin::Block holds (gm side, ub side): GM->UB reads src, UB->GM writes dst.
        if (dir == 1) {
          blocks.push_back({dst, src, len});
        } else {
          blocks.push_back({src, dst, len});
        }
      }
    }
  } else {
    if (c.block_count > sk_twin::kMaxBlockCount || c.block_len > sk_twin::kMaxPadBlockLen) {
      sk_twin::CopyFail(call, "blockCount " + Num(c.block_count) + " or blockLen " + Num(c.block_len) +
                                  " is out of range",
                        "blockCount is 0..4095 and blockLen 0..2097151 bytes");
    }
    if (c.block_len % e != 0) {
      sk_twin::CopyFail(call, "blockLen " + Num(c.block_len) + " bytes is not a multiple of sizeof(" +
                                  sk_twin::DtypeName(c.dtype) + ") = " + Num(e),
                        "blockLen counts bytes of whole elements");
    }
    if (dir == 2) sk_twin::CopyFail(call, "DataCopyPad does not copy UB to UB", "use DataCopy");
    left = uint64_t{c.left_padding} * e;
    right = uint64_t{c.right_padding} * e;
    if (left > sk_twin::kUbBlock || right > sk_twin::kUbBlock) {
      sk_twin::CopyFail(call, "leftPadding/rightPadding of " + Num(left) + "/" + Num(right) + " bytes",
                        "each padding is at most 32 bytes");
    }
    if (c.block_len != 0) {
      ub_span = dir == 0 ? sk_twin::Align32(left + c.block_len + right) : sk_twin::Align32(c.block_len);
      for (uint64_t i = 0; i < c.block_count; ++i) {
        const uint64_t gm = i * (uint64_t{c.block_len} + (dir == 0 ? c.src_stride : c.dst_stride));
        const uint64_t ub = i * (ub_span + uint64_t{dir == 0 ? c.dst_stride : c.src_stride} * sk_twin::kUbBlock);
        blocks.push_back({gm, ub, c.block_len});
      }
    }
  }
  if (blocks.empty()) return;  // blockCount or blockLen 0: a NOP, as on the hardware

  const uint64_t ub_block = c.kind == 2 && dir == 0 ? ub_span : blocks.back().len;
  const uint64_t ub_end = blocks.back().ub + ub_block;
  uint8_t* ub = sk_twin::LocalAccess(*local, 0, ub_end, call, ub_role);
  const uint64_t far_end = blocks.back().gm + blocks.back().len;
  if (dir == 2) {
    const uint8_t* src = sk_twin::LocalAccess(*local_src, 0, far_end, call, "src");
    for (const auto& b : blocks) std::memmove(ub + b.ub, src + b.gm, b.len);
    return;
  }
  uint8_t* gm = sk_twin::GlobalSpan(*global, 0, far_end, e, c.kind != 2, call);
  for (const auto& b : blocks) {
    if (dir == 1) {
      sk_twin::StoreToGm(gm + b.gm, ub + b.ub, b.len, c.dtype, call);
      continue;
    }
    if (c.kind != 2) {
      std::memcpy(ub + b.ub, gm + b.gm, b.len);
      continue;
    }
    // GM->UB with padding: [left][data][right][dummy up to 32 bytes]. The fill is paddingValue (isPad), else
    // the pad register SetPadValue set (mc2_impl.cc), else left as it was (the hardware's random values).
    uint8_t* out = ub + b.ub;
    std::memcpy(out + left, gm + b.gm, b.len);
    const uint64_t used = left + b.len + right;
    const bool by_reg = !c.is_pad && st.pad_bytes != 0 && (left != 0 || right != 0);
    if (by_reg && st.pad_bytes != e) {
      sk_twin::CopyFail(call, "isPad is false and SetPadValue set a " + Num(st.pad_bytes) + "-byte value",
                        "SetPadValue<T> with the element type of the DataCopyPad (" + Num(e) + " bytes)");
    }
    const uint64_t fill = c.is_pad ? c.pad_value : st.pad_bits;
    if (c.is_pad || by_reg) {
      for (uint64_t off = 0; off < left; off += e) std::memcpy(out + off, &fill, e);
      for (uint64_t off = left + b.len; off < used; off += e) std::memcpy(out + off, &fill, e);
    }
    if (used < ub_span) {
      if (left == 0 && right == 0) {
        // The hardware fills the dummy tail with the block's first element.
        for (uint64_t off = used; off + e <= ub_span; off += e) std::memcpy(out + off, out, e);
      } else if (c.is_pad || by_reg) {
        for (uint64_t off = used; off + e <= ub_span; off += e) std::memcpy(out + off, &fill, e);
      }
    }
  }
}

// TBufPool: a PipeRec whose buffers stay inside [pool_start, pool_end), carved out of its parent (a TPipe or a
// pool) or laid over the range of `share` (shared mode: both pools start at the same address).
uint32_t sk_twin_pool_init(uint32_t parent, uint32_t pos, uint32_t len, uint32_t share, uint32_t buffers, void* object,
                           uint32_t old_id) {
  AscendState& st = sk_twin::State("InitBufPool");
  PipeRec& par = sk_twin::Pipe(st, parent, "InitBufPool");
  const std::string call = std::string(par.pool ? "TBufPool" : "TPipe") + "::InitBufPool(pool, len " + Num(len) +
                           (share != 0 ? ", shareBuf)" : ")");
  const uint32_t mem = sk_twin::PosMem(pos);
  if (mem == sk_twin::kMemCount) {
    FailRule(call, std::string("a TBufPool in TPosition::") + sk_twin::PosName(pos) + ", which the CPU twin does not implement",
             "TBufPool in VECIN, VECOUT, VECCALC (UB), A1, B1 or C1 (L1)");
  }
  if (buffers == 0 || buffers > 16) {
    FailRule(call, "bufIDSize is " + Num(buffers), "1 to 16 buffers per TBufPool");
  }
  if (old_id != 0 && old_id < st.pipes.size() && st.pipes[old_id].live) {
    FailRule(call, "this TBufPool already has its memory",
             "InitBufPool once per pool; resetting or destroying the TPipe releases it for a new InitBufPool");
  }
  if (len == 0) FailRule(call, "len is 0 bytes", "give the pool the bytes of all its buffers");
  const uint32_t aligned = sk_twin::Align32(len);
  uint32_t start = 0;
  if (share != 0) {
    if (share >= st.pipes.size() || !st.pipes[share].live || !st.pipes[share].pool) {
      FailRule(call, "shareBuf is not a live TBufPool", "a pool InitBufPool gave memory, not reset or destroyed since");
    }
    const PipeRec& sh = st.pipes[share];
    if (sh.pool_mem != mem) {
      FailRule(call, std::string("the new pool is in ") + sk_twin::MemName(mem) + ", shareBuf (" + sk_twin::PoolText(sh) +
                         ") in " + sk_twin::MemName(sh.pool_mem),
               "a shared pool in the same physical memory as shareBuf");
    }
    if (aligned > sh.pool_end - sh.pool_start) {
      FailRule(call, "len " + Num(aligned) + " (rounded up to 32) is longer than shareBuf (" + sk_twin::PoolText(sh) + ")",
               "at most the length of the shared pool");
    }
    if (buffers > sh.pool_buffers) {
      FailRule(call, "bufIDSize " + Num(buffers) + " exceeds shareBuf's " + Num(sh.pool_buffers),
               "at most the bufIDSize of the shared pool");
    }
    start = sh.pool_start;
  } else {
    if (par.pool) sk_twin::CheckPoolRoom(st, par, call, mem, aligned, buffers);
    uint32_t& top = mem == sk_twin::kMemUb ? par.top : par.cube_top[mem];
    const uint64_t cap = mem == sk_twin::kMemUb ? sk_twin::kUbBytes : sk_twin::MemBytes(mem);
    if (top + uint64_t{aligned} > cap) {
      FailRule(call,
               "needs " + Num(aligned) + " bytes at " + sk_twin::MemName(mem) + " offset " + Num(top) + ", but the " +
                   sk_twin::MemName(mem) + " is " + Num(cap) + " bytes: only " + Num(cap - top) + " bytes are left",
               "shrink the pool so that all InitBuffer/InitBufPool calls fit in " + Num(cap) + " bytes");
    }
    start = top;
    top += aligned;
    if (mem == sk_twin::kMemUb) {
      st.ub_top = std::max(st.ub_top, top);
    } else {
      st.cube_top[mem] = std::max(st.cube_top[mem], top);
    }
  }
  PipeRec rec;
  rec.object = object;
  rec.live = true;
  rec.pool = true;
  rec.pool_mem = mem;
  rec.pool_start = start;
  rec.pool_end = start + aligned;
  rec.pool_buffers = buffers;
  rec.base = rec.top = start;
  for (uint32_t m = sk_twin::kMemL1; m < sk_twin::kMemCount; ++m) rec.cube_base[m] = rec.cube_top[m] = start;
  st.pipes.push_back(rec);
  const uint32_t id = static_cast<uint32_t>(st.pipes.size() - 1);
  st.pipes[parent].pools.push_back(id);
  return id;
}

// TBufPool::Reset: the pool ends its work (its buffers stay, their contents may be overwritten by a pool sharing
// them). Every AllocTensor/EnQue of it must be matched by then, as the hardware's pool switch needs.
void sk_twin_pool_reset(uint32_t pool) {
  AscendState& st = sk_twin::State("TBufPool::Reset");
  if (pool == 0 || pool >= st.pipes.size() || !st.pipes[pool].live || !st.pipes[pool].pool) {
    FailRule("TBufPool::Reset", "the TBufPool has no memory (no InitBufPool, or its TPipe was reset or destroyed)",
             "TPipe::InitBufPool or TBufPool::InitBufPool on it first");
  }
  const PipeRec& p = st.pipes[pool];
  for (uint32_t id : p.objects) {
    for (uint32_t s : st.objects[id].slots) {
      const SlotState state = st.slots[s].state;
      if (state == SlotState::kAllocated || state == SlotState::kQueued) {
        FailRule("TBufPool::Reset",
                 "a tensor of the " + sk_twin::ObjectText(st, id) + " of this " + sk_twin::PoolText(p) + " is still " +
                     (state == SlotState::kAllocated ? "allocated" : "enqueued"),
                 "FreeTensor every AllocTensor and DeQue every EnQue of the pool before Reset");
      }
    }
  }
}

}  // extern "C"
