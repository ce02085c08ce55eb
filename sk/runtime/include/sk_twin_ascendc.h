// sk_twin_ascendc.h - the Ascend C programming model on the CPU twin:
// TPipe/TQue/TQueBind/TBuf, GlobalTensor/LocalTensor, DataCopy/DataCopyPad
// and the vector instructions in their count form. Included by
// kernel_operator.h; written from the public Ascend C API documentation.
//
// The objects here are small handles. The state they stand for (the
// Unified Buffer of the worker, its buffers, queues and their contents)
// lives in the runtime (src/ascendc.cc, src/vector.cc), which checks the
// hardware's rules on every call and fails the launch with a message that
// names the kernel, the block, the call and the values:
//   - TPipe::InitBuffer past the 192 KiB Unified Buffer;
//   - DataCopy lengths or UB addresses that are not 32-byte aligned, GM
//     addresses not aligned to the element size;
//   - AllocTensor with every buffer of the queue in use, EnQue past the
//     queue's depth, DeQue on an empty queue, FreeTensor twice;
//   - any use of a LocalTensor after FreeTensor (or after its TPipe was
//     reset or destroyed), or outside the buffer it was allocated in;
//   - a GlobalTensor access outside its SetGlobalBuffer size.
// A kernel object only references the runtime's sk_twin_* hooks: no libm,
// no libstdc++ (the SuperKernel link allows nothing else).
//
// Not implemented: queues and buffers in the cube positions (A1, B1, CO1,
// ...), whose TPipe::InitBuffer fails at run time naming them. The mask/repeat ("tensor
// high-dimension slicing") forms are in sk_twin_vector_ext.h, the
// high-level Matmul API in sk_twin_matmul.h.
#ifndef SK_TWIN_ASCENDC_H_
#define SK_TWIN_ASCENDC_H_

#include <cstdint>
#include <cstring>
#include <cstdio>
#include <type_traits>

#include "sk_twin.h"
#include "sk_twin_half.h"

// int4b_t, the 4-bit signed integer of Ascend C's type list: one value in the low 4 bits of a byte, set from an
// integer modulo 16 and read sign-extended. Tensors of it pack two elements a byte (element 2k in the low nibble):
// sizes and offsets are in elements and must be even; DataCopy/DataCopyPad and Cast with half take them, other
// instructions stop compilation with "the CPU twin does not implement ... for int4b_t yet".
struct int4b_t {
  uint8_t storage = 0;
  int4b_t() = default;
  int4b_t(int32_t v) : storage(static_cast<uint8_t>(static_cast<uint32_t>(v) & 0xfu)) {}  // NOLINT: implicit
  int4b_t(uint32_t v) : storage(static_cast<uint8_t>(v & 0xfu)) {}                         // NOLINT: implicit
  operator int8_t() const {  // NOLINT: implicit, as the toolkit's
    return static_cast<int8_t>((storage & 0x8u) ? (storage | 0xf0u) : storage);
  }
  bool operator==(const int4b_t& o) const { return storage == o.storage; }
  bool operator!=(const int4b_t& o) const { return storage != o.storage; }
  bool operator<(const int4b_t& o) const { return int8_t(*this) < int8_t(o); }
  bool operator<=(const int4b_t& o) const { return int8_t(*this) <= int8_t(o); }
  bool operator>(const int4b_t& o) const { return int8_t(*this) > int8_t(o); }
  bool operator>=(const int4b_t& o) const { return int8_t(*this) >= int8_t(o); }
};

namespace AscendC {

using ::int4b_t;  // kernels write AscendC::int4b_t as well as int4b_t

enum class TPosition : uint8_t {
  GM,
  A1,
  A2,
  B1,
  B2,
  C1,
  C2,
  CO1,
  CO2,
  VECIN,
  VECOUT,
  VECCALC,
  LCM = VECCALC,
  SPM,
  SHM = SPM,
  TSCM,
  C2PIPE2GM,
  C2PIPE2LOCAL,
  MAX,
};
using QuePosition = TPosition;

enum class RoundMode : uint8_t { CAST_NONE = 0, CAST_RINT, CAST_FLOOR, CAST_CEIL, CAST_ROUND, CAST_TRUNC, CAST_ODD };
enum class CMPMODE : uint8_t { LT = 0, GT, EQ, LE, GE, NE };
enum class SELMODE : uint8_t { VSEL_CMPMASK_SPR = 0, VSEL_TENSOR_SCALAR_MODE, VSEL_TENSOR_TENSOR_MODE };

// The UB is addressed in 32-byte data blocks; a repeat of a vector
// instruction covers 256 bytes.
constexpr uint32_t ONE_BLK_SIZE = 32;
constexpr uint32_t ONE_REPEAT_BYTE_SIZE = 256;
constexpr uint32_t TOTAL_UB_SIZE = 192 * 1024;

namespace sk_detail {

template <typename T>
struct Dtype {
  // Every instruction that names its element type reaches here: int4b_t has no element code.
  static_assert(!std::is_same<T, int4b_t>::value,
                "the CPU twin does not implement this instruction for int4b_t yet (only tensors, DataCopy, "
                "DataCopyPad and Cast int4b_t <-> half)");
};
#define SK_TWIN_DTYPE(T, CODE)                 \
  template <>                                  \
  struct Dtype<T> {                            \
    static constexpr uint32_t value = CODE;    \
  };
SK_TWIN_DTYPE(uint8_t, SK_TWIN_DT_U8)
SK_TWIN_DTYPE(bool, SK_TWIN_DT_U8)  // one byte, as the hardware moves it
SK_TWIN_DTYPE(int8_t, SK_TWIN_DT_I8)
SK_TWIN_DTYPE(uint16_t, SK_TWIN_DT_U16)
SK_TWIN_DTYPE(int16_t, SK_TWIN_DT_I16)
SK_TWIN_DTYPE(half, SK_TWIN_DT_HALF)
SK_TWIN_DTYPE(bfloat16_t, SK_TWIN_DT_BF16)
SK_TWIN_DTYPE(uint32_t, SK_TWIN_DT_U32)
SK_TWIN_DTYPE(int32_t, SK_TWIN_DT_I32)
SK_TWIN_DTYPE(float, SK_TWIN_DT_F32)
SK_TWIN_DTYPE(uint64_t, SK_TWIN_DT_U64)
SK_TWIN_DTYPE(int64_t, SK_TWIN_DT_I64)
SK_TWIN_DTYPE(double, SK_TWIN_DT_F64)
#undef SK_TWIN_DTYPE

template <typename T, typename = void>
struct HasDtype : std::false_type {};
template <typename T>
struct HasDtype<T, decltype((void)Dtype<T>::value)> : std::true_type {};

template <typename T>
constexpr bool kFalse = false;

template <typename T>
constexpr bool kInt4 = std::is_same<T, int4b_t>::value;
template <typename T>
constexpr bool kTensorType = std::disjunction<std::is_same<T, int4b_t>, HasDtype<T>>::value;

// The bytes of n elements of T (int4b_t: n / 2, an odd n fails `call`), and the elements in `bytes`.
template <typename T>
static inline uint64_t ElemBytes(uint64_t n, const char* call) {
  if constexpr (kInt4<T>) return sk_twin_int4_bytes(n, call);
  else return n * sizeof(T);
}
template <typename T>
static inline uint64_t BytesElems(uint64_t bytes) {
  if constexpr (kInt4<T>) return bytes * 2;
  else return bytes / sizeof(T);
}
// Element i of packed int4b_t bytes, and its store.
static inline int4b_t Int4Load(const uint8_t* base, uint64_t i) {
  return int4b_t(static_cast<uint32_t>(base[i / 2] >> (4 * (i % 2))));
}
static inline void Int4Store(uint8_t* base, uint64_t i, int4b_t v) {
  const unsigned shift = 4 * (i % 2);
  base[i / 2] = static_cast<uint8_t>((base[i / 2] & ~(0xfu << shift)) | ((v.storage & 0xfu) << shift));
}

// A parameter of type T that does not take part in deduction, so that
// `Muls(halfTensor, halfTensor, 2.0f, n)` converts the scalar to half.
template <typename T>
struct Identity {
  using type = T;
};
template <typename T>
using Scalar = typename Identity<T>::type;

template <typename T>
static inline uint64_t Bits(T v) {
  uint64_t out = 0;
  std::memcpy(&out, &v, sizeof(T));
  return out;
}

template <typename T, typename... Allowed>
constexpr bool kOneOf = (std::is_same<T, Allowed>::value || ...);

constexpr bool IsVectorPosition(TPosition p) {
  return p == TPosition::VECIN || p == TPosition::VECOUT || p == TPosition::VECCALC;
}

}  // namespace sk_detail

template <typename T>
class GlobalTensor;

// A tensor in the worker's Unified Buffer.
template <typename T>
class LocalTensor {
  static_assert(sk_detail::kTensorType<T>,
                "LocalTensor<T>: the CPU twin supports T = bool, int4b_t, int8_t, uint8_t, int16_t, uint16_t, half, bfloat16_t, "
                "int32_t, uint32_t, float, int64_t, uint64_t, double");

 public:
  using PrimType = T;
  LocalTensor() = default;
  // Static-tensor programming: tileSize elements at UB byte address addr (sk_twin_local_static).
  LocalTensor(TPosition pos, uint32_t addr, uint32_t tileSize) {
    sk_twin_local_static(static_cast<uint32_t>(pos), addr,
                         sk_detail::ElemBytes<T>(tileSize, "LocalTensor<int4b_t>(pos, addr, tileSize)"), &ref_);
  }

  T GetValue(const uint32_t index) const {
    if constexpr (sk_detail::kInt4<T>) {
      const void* p = sk_twin_local_at(&ref_, index / 2, 1, "LocalTensor<int4b_t>::GetValue");
      return sk_detail::Int4Load(static_cast<const uint8_t*>(p) - index / 2, index);
    }
    T v;
    std::memcpy(&v, sk_twin_local_at(&ref_, uint64_t{index} * sizeof(T), sizeof(T), "LocalTensor::GetValue"),
                sizeof(T));
    return v;
  }
  template <typename U>
  void SetValue(const uint32_t index, const U value) const {
    const T v = static_cast<T>(value);
    if constexpr (sk_detail::kInt4<T>) {
      void* p = sk_twin_local_at(&ref_, index / 2, 1, "LocalTensor<int4b_t>::SetValue");
      sk_detail::Int4Store(static_cast<uint8_t*>(p) - index / 2, index, v);
      return;
    }
    std::memcpy(sk_twin_local_at(&ref_, uint64_t{index} * sizeof(T), sizeof(T), "LocalTensor::SetValue"), &v,
                sizeof(T));
  }
  T& operator()(const uint32_t index) const {
    static_assert(!sk_detail::kInt4<T>,
                  "the CPU twin does not implement LocalTensor::operator() for int4b_t yet (half a byte has no "
                  "reference): use GetValue/SetValue");
    return *static_cast<T*>(sk_twin_local_at(&ref_, uint64_t{index} * sizeof(T), sizeof(T), "LocalTensor::operator()"));
  }
  LocalTensor operator[](const uint32_t offset) const {
    LocalTensor out;
    sk_twin_local_view(&ref_, sk_detail::ElemBytes<T>(offset, "LocalTensor<int4b_t>::operator[]"), 0, 0,
                       &out.ref_);
    return out;
  }
  uint32_t GetSize() const { return static_cast<uint32_t>(sk_detail::BytesElems<T>(ref_.bytes)); }
  uint32_t GetLength() const { return ref_.bytes; }
  void SetSize(const uint32_t size) {
    sk_twin_local_view(&ref_, 0, sk_detail::ElemBytes<T>(size, "LocalTensor<int4b_t>::SetSize"), 1, &ref_);
  }
  template <typename CAST_T>
  LocalTensor<CAST_T> ReinterpretCast() const {
    LocalTensor<CAST_T> out;
    out.ref_ = ref_;
    return out;
  }
  // Whole-tensor expressions (`dst = a + b`, `mask = a < b`), built by
  // sk_twin_vector_ext.h: the instruction over the whole tensor.
  template <typename E, typename = typename E::SkTwinExpr>
  LocalTensor& operator=(const E& e) {
    e.Eval(*this);
    return *this;
  }
  LocalTensor(const LocalTensor&) = default;
  LocalTensor& operator=(const LocalTensor&) = default;

  // The UB address, as the twin's raw local-memory intrinsics take it.
  uint64_t GetPhyAddr() const { return ref_.addr; }
  uint64_t GetPhyAddr(const uint32_t offset) const {
    return ref_.addr + sk_detail::ElemBytes<T>(offset, "LocalTensor<int4b_t>::GetPhyAddr");
  }

  SkTwinLocalRef ref_{0, 0, 0, 0};
};

// L2 cache hints (GlobalTensor::SetL2CacheHint): the twin has no L2, a hint changes nothing.
enum class CacheMode : uint8_t { CACHE_MODE_DISABLE = 0, CACHE_MODE_NORMAL = 1, CACHE_MODE_PERSISTENT = 4 };
enum CacheRwMode { READ = 1, WRITE = 2, RW = 3 };

// A view of global memory.

template <typename T>
class GlobalTensor {
  static_assert(sk_detail::kTensorType<T>,
                "GlobalTensor<T>: the CPU twin supports T = bool, int4b_t, int8_t, uint8_t, int16_t, uint16_t, half, bfloat16_t, "
                "int32_t, uint32_t, float, int64_t, uint64_t, double");

 public:
  using PrimType = T;
  GlobalTensor() = default;

  void SetGlobalBuffer(__gm__ T* buffer, uint64_t bufferSize) {
    g_.base = reinterpret_cast<uint8_t*>(buffer);
    g_.size_bytes = sk_detail::ElemBytes<T>(bufferSize, "GlobalTensor<int4b_t>::SetGlobalBuffer");
    g_.offset_bytes = 0;
  }
  // Without a size GetSize() is 0 and accesses are not bounds-checked.
  void SetGlobalBuffer(__gm__ T* buffer) { SetGlobalBuffer(buffer, 0); }

  T GetValue(const uint64_t offset) const {
    if constexpr (sk_detail::kInt4<T>) {
      return sk_detail::Int4Load(static_cast<const uint8_t*>(At(offset, "GlobalTensor<int4b_t>::GetValue")) -
                                     offset / 2, offset);
    }
    T v;
    std::memcpy(&v, At(offset, "GlobalTensor::GetValue"), sizeof(T));
    return v;
  }
  template <typename U>
  void SetValue(const uint64_t offset, const U value) const {
    const T v = static_cast<T>(value);
    if constexpr (sk_detail::kInt4<T>) {
      uint8_t* p = static_cast<uint8_t*>(At(offset, "GlobalTensor<int4b_t>::SetValue"));
      sk_detail::Int4Store(p - offset / 2, offset, v);
      return;
    }
    std::memcpy(At(offset, "GlobalTensor::SetValue"), &v, sizeof(T));
  }
  T& operator()(const uint64_t offset) const {
    static_assert(!sk_detail::kInt4<T>,
                  "the CPU twin does not implement GlobalTensor::operator() for int4b_t yet (half a byte has no "
                  "reference): use GetValue/SetValue");
    return *static_cast<T*>(At(offset, "GlobalTensor::operator()")); }
  GlobalTensor operator[](const uint64_t offset) const {
    GlobalTensor out = *this;
    out.g_.offset_bytes += sk_detail::ElemBytes<T>(offset, "GlobalTensor<int4b_t>::operator[]");
    return out;
  }
  uint64_t GetSize() const {
    if (g_.size_bytes <= g_.offset_bytes) return 0;
    return sk_detail::BytesElems<T>(g_.size_bytes - g_.offset_bytes);
  }
  __gm__ T* GetPhyAddr() const { return reinterpret_cast<T*>(g_.base + g_.offset_bytes); }
  __gm__ T* GetPhyAddr(const uint64_t offset) const {
    return reinterpret_cast<T*>(g_.base + g_.offset_bytes +
                                sk_detail::ElemBytes<T>(offset, "GlobalTensor<int4b_t>::GetPhyAddr"));
  }
  template <typename CAST_T>
  GlobalTensor<CAST_T> ReinterpretCast() const {
    GlobalTensor<CAST_T> out;
    out.g_ = g_;
    return out;
  }
  template <CacheRwMode rwMode = CacheRwMode::RW>
  void SetL2CacheHint(CacheMode) {}

  SkTwinGlobalRef g_{nullptr, 0, 0};

 private:
  void* At(uint64_t offset, const char* call) const {
    // int4b_t: the byte that holds the element (offset may be odd here).
    const uint64_t byte = g_.offset_bytes + (sk_detail::kInt4<T> ? offset / 2 : offset * sizeof(T));
    if (g_.size_bytes != 0 && (byte + sizeof(T) > g_.size_bytes)) sk_twin_global_oob(&g_, byte, sizeof(T), call);
    return g_.base + byte;
  }
};

template <TPosition pos>
class TBuf;

using TEventID = int8_t;
using TBufHandle = uint8_t*;  // a queue buffer's handle (untyped DeQue)

// A queue's compile-time configuration (TQue<pos, depth, &config>). bufferLen
// and bufferNumber, when not 0, must equal InitBuffer's len and num; nd2nz and
// nz2nd exist on Atlas inference AI Cores only; the rest are reserved.
struct TQueConfig {
  bool nd2nz = false;
  bool nz2nd = false;
  bool scmBlockGroup = false;
  uint32_t bufferLen = 0;
  uint32_t bufferNumber = 0;
  uint32_t consumerSize = 0;
  TPosition consumer[8] = {};
  bool enableStaticEvtId = false;
  bool enableLoopQueue = false;
};

// A queue of UB buffers between pipeline stages. depth: how many tensors may
// be in the queue at once (EnQue without DeQue); the number of buffers comes
// from TPipe::InitBuffer.
template <TPosition src, TPosition dst, int32_t depth, auto mask = 0>
class TQueBind {
  // Queues in the cube's positions (A1, B1, CO1, ...) compile, so that a kernel
  // that has such a path on another core type builds; TPipe::InitBuffer of one
  // fails at run time, naming the position (the twin models only the UB). cube positions (A1, A2, B1, B2, CO1, CO2) and the Matmul data path are not supported");
  static_assert(depth >= 0, "TQue depth must be >= 0");

 public:
  static constexpr TPosition kSkPosition = src;
  static constexpr int32_t kSkDepth = depth;
  static constexpr uint32_t kSkKind = 0;
  static constexpr const TQueConfig* kSkConfig = [] {
    if constexpr (std::is_same_v<decltype(mask), const TQueConfig*>) return mask;
    else return static_cast<const TQueConfig*>(nullptr);
  }();
  static_assert(kSkConfig == nullptr || (!kSkConfig->nd2nz && !kSkConfig->nz2nd),
                "TQueConfig nd2nz/nz2nd: the CPU twin (as Atlas A2/A3) has no format conversion on a queue");

  TQueBind() = default;
  // A copy is another handle of the same queue (kernels keep queues in
  // helper objects by assignment, as Ascend C's queue objects allow).
  TQueBind(const TQueBind&) = default;
  TQueBind& operator=(const TQueBind&) = default;

  template <typename T>
  LocalTensor<T> AllocTensor() {
    LocalTensor<T> t;
    sk_twin_que_alloc(sk_id_, &t.ref_);
    return t;
  }
  template <typename T>
  void AllocTensor(LocalTensor<T>& tensor) {
    sk_twin_que_alloc(sk_id_, &tensor.ref_);
  }
  template <typename T>
  bool EnQue(const LocalTensor<T>& tensor) {
    sk_twin_que_enque(sk_id_, &tensor.ref_);
    return true;
  }
  template <TPosition srcUserPos, TPosition dstUserPos, typename T>
  bool EnQue(const LocalTensor<T>& tensor) {
    return EnQue(tensor);
  }
  template <typename T>
  LocalTensor<T> DeQue() {
    LocalTensor<T> t;
    sk_twin_que_deque(sk_id_, &t.ref_);
    return t;
  }
  template <TPosition srcUserPos, TPosition dstUserPos, typename T>
  LocalTensor<T> DeQue() {
    return DeQue<T>();
  }
  template <typename T>
  void DeQue(LocalTensor<T>& tensor) {
    sk_twin_que_deque(sk_id_, &tensor.ref_);
  }
  // The untyped form: dequeues the front buffer and returns its handle (its UB address on the twin).
  TBufHandle DeQue() {
    SkTwinLocalRef r{0, 0, 0, 0};
    sk_twin_que_deque(sk_id_, &r);
    return reinterpret_cast<TBufHandle>(static_cast<uintptr_t>(r.addr));
  }
  template <typename T>
  void FreeTensor(LocalTensor<T>& tensor) {
    sk_twin_que_free(sk_id_, &tensor.ref_);
  }
  bool HasTensorInQue() { return sk_twin_que_count(sk_id_, 0) > 0; }
  int32_t GetTensorCountInQue() { return static_cast<int32_t>(sk_twin_que_count(sk_id_, 0)); }
  bool HasIdleBuffer() { return sk_twin_que_count(sk_id_, 1) > 0; }
  bool VacantInQue() { return depth == 0 || sk_twin_que_count(sk_id_, 0) < static_cast<uint32_t>(depth); }
  void FreeAllEvent() {}

  uint32_t sk_id_ = 0;
};

template <TPosition pos, int32_t depth, auto mask = 0>
class TQue : public TQueBind<pos, pos, depth, mask> {};

// One UB buffer for temporaries; Get() always starts at its beginning.
template <TPosition pos = TPosition::VECCALC>
class TBuf {
  // Cube positions compile; InitBuffer of one fails at run time (see TQueBind). cube positions are not supported");

 public:
  static constexpr TPosition kSkPosition = pos;
  static constexpr int32_t kSkDepth = 0;
  static constexpr uint32_t kSkKind = 1;

  TBuf() = default;
  TBuf(const TBuf&) = default;  // another handle of the same buffer
  TBuf& operator=(const TBuf&) = default;

  template <typename T>
  LocalTensor<T> Get() {
    LocalTensor<T> t;
    sk_twin_buf_get(sk_id_, ~uint64_t{0}, sizeof(T), 0, 0, &t.ref_);
    return t;
  }
  template <typename T>
  LocalTensor<T> Get(uint32_t len) {
    LocalTensor<T> t;
    sk_twin_buf_get(sk_id_, sk_detail::kInt4<T> ? sk_detail::ElemBytes<T>(len, "TBuf::Get<int4b_t>") : len,
                    sizeof(T), 0, 0, &t.ref_);
    return t;
  }
  template <typename T>
  LocalTensor<T> GetWithOffset(uint32_t size, uint32_t bufOffset) {
    LocalTensor<T> t;
    sk_twin_buf_get(sk_id_, sk_detail::kInt4<T> ? sk_detail::ElemBytes<T>(size, "TBuf::GetWithOffset<int4b_t>") : size,
                    sizeof(T), bufOffset, 1, &t.ref_);
    return t;
  }
  // The queue interface a TBuf inherits: a buffer has no queue, so AllocTensor and DeQue are Get() (the whole
  // buffer from its start) and EnQue and FreeTensor do nothing.
  template <typename T>
  LocalTensor<T> AllocTensor() { return Get<T>(); }
  template <typename T>
  void FreeTensor(LocalTensor<T>&) {}
  template <typename T>
  void EnQue(const LocalTensor<T>&) {}
  template <typename T>
  LocalTensor<T> DeQue() { return Get<T>(); }

  uint32_t sk_id_ = 0;
};

// InitBuffer of a TPipe or a TBufPool (`owner`: its pipe id; `who` names it in a refusal).
namespace sk_detail {
template <typename Q>
static inline bool InitQueueIn(uint32_t owner, const char* who, Q& que, uint8_t num, uint32_t len) {
  static_assert(Q::kSkKind == 0, "InitBuffer(que, num, len) takes a TQue/TQueBind; a TBuf takes (buf, len)");
  if constexpr (Q::kSkConfig != nullptr) {
    if ((Q::kSkConfig->bufferNumber != 0 && Q::kSkConfig->bufferNumber != num) ||
        (Q::kSkConfig->bufferLen != 0 && Q::kSkConfig->bufferLen != len)) {
      char msg[256];
      std::snprintf(msg, sizeof msg,
                    "%s::InitBuffer(num %u, len %u): the queue's TQueConfig has bufferNumber %u, bufferLen %u; "
                    "allowed: the same values (0 in the config: any)",
                    who, static_cast<unsigned>(num), static_cast<unsigned>(len),
                    static_cast<unsigned>(Q::kSkConfig->bufferNumber), static_cast<unsigned>(Q::kSkConfig->bufferLen));
      ::sk_twin_fail(msg);
    }
  }
  que.sk_id_ = sk_twin_pipe_init_buffer(owner, 0, static_cast<uint32_t>(Q::kSkPosition),
                                        static_cast<uint32_t>(Q::kSkDepth), num, len, que.sk_id_);
  return true;
}
template <TPosition bufPos>
static inline bool InitBufIn(uint32_t owner, TBuf<bufPos>& buf, uint32_t len) {
  buf.sk_id_ = sk_twin_pipe_init_buffer(owner, 1, static_cast<uint32_t>(bufPos), 0, 1, len, buf.sk_id_);
  return true;
}
}  // namespace sk_detail

// The buffer manager of one core. Its buffers are released when it is
// reset or destroyed (each sub-kernel of a SuperKernel has its own).
class TPipe {
 public:
  TPipe() : sk_id_(sk_twin_pipe_create(this)) {}
  ~TPipe() {
    if (sk_owner_) sk_twin_pipe_destroy(sk_id_);
  }
  // A copy (kernels take the kernel function's pipe by value, `Init(..., TPipe pipeIn)`) is another handle of the
  // same pipe, as on the device where TPipe is plain data: it neither creates nor releases buffers.
  TPipe(const TPipe& other) : sk_id_(other.sk_id_), sk_owner_(false) {}
  // `member = pipeIn;` (kernels keep the kernel function's pipe in their op class): the assigned object becomes
  // another handle of that pipe, its buffers and its lifetime; the pipe it was is released.
  TPipe& operator=(const TPipe& other) {
    if (this != &other && sk_id_ != other.sk_id_) {
      if (sk_owner_) sk_twin_pipe_destroy(sk_id_);
      sk_id_ = other.sk_id_;
      sk_owner_ = false;
    }
    return *this;
  }

  template <typename Q>
  bool InitBuffer(Q& que, uint8_t num, uint32_t len) {
    return sk_detail::InitQueueIn(sk_id_, "TPipe", que, num, len);
  }
  template <TPosition bufPos>
  bool InitBuffer(TBuf<bufPos>& buf, uint32_t len) {
    return sk_detail::InitBufIn(sk_id_, buf, len);
  }
  void Reset() { sk_twin_pipe_reset(sk_id_); }
  void Destroy() { sk_twin_pipe_reset(sk_id_); }
  void Init() {}
  // TBufPool (sk_twin_bufpool.h): a pool of len bytes carved out of this pipe, or over shareBuf's range.
  template <class P>
  bool InitBufPool(P& bufPool, uint32_t len) {
    return bufPool.SkInit(sk_id_, len, 0u);
  }
  template <class P, class S>
  bool InitBufPool(P& bufPool, uint32_t len, S& shareBuf) {
    return bufPool.SkInit(sk_id_, len, shareBuf.sk_id_);
  }

  // Event ids for SetFlag/WaitFlag. The twin counts those flags and runs a
  // worker's pipes in program order, so any id works.
  template <HardEvent evt>
  TEventID AllocEventID() {
    return 0;
  }
  template <HardEvent evt>
  void ReleaseEventID(TEventID id) {
    (void)id;
  }
  TEventID FetchEventID(HardEvent evt) {
    (void)evt;
    return 0;
  }
  template <HardEvent evt>
  TEventID FetchEventID() {
    return 0;
  }

  uint32_t sk_id_;
  bool sk_owner_ = true;
};

static inline TPipe* GetTPipePtr() { return static_cast<TPipe*>(sk_twin_pipe_current()); }

// ------------------------------------------------------------- data movement

struct DataCopyParams {
  DataCopyParams() {}
  DataCopyParams(const uint16_t count, const uint16_t len, const uint16_t srcStrideIn, const uint16_t dstStrideIn)
      : blockCount(count), blockLen(len), srcStride(srcStrideIn), dstStride(dstStrideIn) {}
  uint16_t blockCount = 1;
  uint16_t blockLen = 0;  // in 32-byte blocks
  union {                 // gaps between blocks, in 32-byte blocks
    uint16_t srcStride = 0;
    uint16_t srcGap;
  };
  union {
    uint16_t dstStride = 0;
    uint16_t dstGap;
  };
};

struct DataCopyExtParams {
  DataCopyExtParams() {}
  DataCopyExtParams(const uint16_t count, const uint32_t len, const uint32_t srcStrideIn, const uint32_t dstStrideIn,
                    const uint32_t rsvIn)
      : blockCount(count), blockLen(len), srcStride(srcStrideIn), dstStride(dstStrideIn), rsv(rsvIn) {}
  uint16_t blockCount = 1;
  uint32_t blockLen = 0;   // in bytes
  uint32_t srcStride = 0;  // GM side in bytes, UB side in 32-byte blocks
  uint32_t dstStride = 0;
  uint32_t rsv = 0;
};

template <typename T>
struct DataCopyPadExtParams {
  DataCopyPadExtParams() {}
  DataCopyPadExtParams(const bool isPadValue, const uint8_t leftPadValue, const uint8_t rightPadValue, T padValue)
      : isPad(isPadValue), leftPadding(leftPadValue), rightPadding(rightPadValue), paddingValue(padValue) {}
  bool isPad = false;
  uint8_t leftPadding = 0;   // elements
  uint8_t rightPadding = 0;  // elements
  T paddingValue = T(0);
};

// The older form of the padding parameters (DataCopyPad with DataCopyParams).
struct DataCopyPadParams {
  DataCopyPadParams() {}
  DataCopyPadParams(const bool isPadValue, const uint8_t leftPadValue, const uint8_t rightPadValue,
                    const uint64_t padValue)
      : isPad(isPadValue), leftPadding(leftPadValue), rightPadding(rightPadValue), paddingValue(padValue) {}
  bool isPad = false;
  uint8_t leftPadding = 0;
  uint8_t rightPadding = 0;
  uint64_t paddingValue = 0;
};

namespace sk_detail {
template <typename T>
static inline SkTwinCopy CopyOf(uint32_t kind) {
  SkTwinCopy c;
  std::memset(&c, 0, sizeof c);
  c.kind = kind;
  c.elem = sizeof(T);  // int4b_t: moved as bytes, sizeof(int4b_t) == 1
  if constexpr (kInt4<T>) c.dtype = SK_TWIN_DT_U8;
  else c.dtype = Dtype<T>::value;
  return c;
}
template <typename T>
static inline SkTwinCopy CountCopy(uint32_t count) {
  SkTwinCopy c = CopyOf<T>(0);
  // elements of c.elem bytes: int4b_t moves count / 2 one-byte elements
  c.count = kInt4<T> ? ElemBytes<T>(count, "DataCopy<int4b_t>(count)") : count;
  return c;
}
template <typename T>
static inline SkTwinCopy BlockCopy(const DataCopyParams& p) {
  SkTwinCopy c = CopyOf<T>(1);
  c.block_count = p.blockCount;
  c.block_len = p.blockLen;
  c.src_stride = p.srcStride;
  c.dst_stride = p.dstStride;
  return c;
}
template <typename T>
static inline SkTwinCopy PadCopy(uint32_t count, uint32_t len, uint32_t src_stride, uint32_t dst_stride) {
  SkTwinCopy c = CopyOf<T>(2);
  c.block_count = count;
  c.block_len = len;
  c.src_stride = src_stride;
  c.dst_stride = dst_stride;
  return c;
}
}  // namespace sk_detail

namespace sk_detail {
// DataCopyPad's padding is counted in elements and filled with a T: for int4b_t that would be half bytes.
template <typename T>
static inline void Int4NoPadding(bool isPad, uint32_t left, uint32_t right) {
  if constexpr (kInt4<T>) {
    if (isPad || left != 0 || right != 0) {
      sk_twin_int4_refuse("DataCopyPad<int4b_t>(GM -> UB, padParams)", "padding (isPad/leftPadding/rightPadding)",
                          "the CPU twin does not implement DataCopyPad padding for int4b_t yet: pass no padding");
    }
  }
}
}  // namespace sk_detail

// GM <-> UB, count elements (count * sizeof(T) must be a multiple of 32; int4b_t: count / 2 bytes).
template <typename T>
static inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const uint32_t count) {
  const SkTwinCopy c = sk_detail::CountCopy<T>(count);
  sk_twin_data_copy(0, &dst.ref_, &src.g_, nullptr, &c);
}
template <typename T>
static inline void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t count) {
  const SkTwinCopy c = sk_detail::CountCopy<T>(count);
  sk_twin_data_copy(1, &src.ref_, &dst.g_, nullptr, &c);
}
template <typename T>
static inline void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t count) {
  const SkTwinCopy c = sk_detail::CountCopy<T>(count);
  sk_twin_data_copy(2, &dst.ref_, nullptr, &src.ref_, &c);
}
// GM <-> UB in blocks: blockCount blocks of blockLen 32-byte units, gaps in 32-byte units.
template <typename T>
static inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyParams& params) {
  const SkTwinCopy c = sk_detail::BlockCopy<T>(params);
  sk_twin_data_copy(0, &dst.ref_, &src.g_, nullptr, &c);
}
template <typename T>
static inline void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& params) {
  const SkTwinCopy c = sk_detail::BlockCopy<T>(params);
  sk_twin_data_copy(1, &src.ref_, &dst.g_, nullptr, &c);
}
template <typename T>
static inline void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& params) {
  const SkTwinCopy c = sk_detail::BlockCopy<T>(params);
  sk_twin_data_copy(2, &dst.ref_, nullptr, &src.ref_, &c);
}

// Unaligned moves: blockLen in bytes; GM -> UB pads every block to 32 bytes.
template <typename T>
static inline void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src,
                               const DataCopyExtParams& params, const DataCopyPadExtParams<T>& padParams) {
  SkTwinCopy c = sk_detail::PadCopy<T>(params.blockCount, params.blockLen, params.srcStride, params.dstStride);
  sk_detail::Int4NoPadding<T>(padParams.isPad, padParams.leftPadding, padParams.rightPadding);
  c.pad = 1;
  c.is_pad = padParams.isPad ? 1 : 0;
  c.left_padding = padParams.leftPadding;
  c.right_padding = padParams.rightPadding;
  c.pad_value = sk_detail::Bits<T>(padParams.paddingValue);
  sk_twin_data_copy(0, &dst.ref_, &src.g_, nullptr, &c);
}
template <typename T>
static inline void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src,
                               const DataCopyExtParams& params) {
  const SkTwinCopy c = sk_detail::PadCopy<T>(params.blockCount, params.blockLen, params.srcStride, params.dstStride);
  sk_twin_data_copy(1, &src.ref_, &dst.g_, nullptr, &c);
}
template <typename T>
static inline void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyParams& params,
                               const DataCopyPadParams& padParams) {
  SkTwinCopy c = sk_detail::PadCopy<T>(params.blockCount, params.blockLen, params.srcStride, params.dstStride);
  sk_detail::Int4NoPadding<T>(padParams.isPad, padParams.leftPadding, padParams.rightPadding);
  c.pad = 1;
  c.is_pad = padParams.isPad ? 1 : 0;
  c.left_padding = padParams.leftPadding;
  c.right_padding = padParams.rightPadding;
  c.pad_value = sk_detail::Bits<T>(static_cast<T>(padParams.paddingValue));
  sk_twin_data_copy(0, &dst.ref_, &src.g_, nullptr, &c);
}
template <typename T>
static inline void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& params) {
  const SkTwinCopy c = sk_detail::PadCopy<T>(params.blockCount, params.blockLen, params.srcStride, params.dstStride);
  sk_twin_data_copy(1, &src.ref_, &dst.g_, nullptr, &c);
}

// -------------------------------------------------------- vector instructions
// Count forms only. Results whose destination is half/bfloat16_t are rounded
// to nearest even after every instruction.

namespace sk_detail {
template <typename T>
constexpr bool kFloating = kOneOf<T, half, bfloat16_t, float>;
template <typename T>
constexpr bool kArith = kOneOf<T, half, bfloat16_t, float, int16_t, int32_t>;
template <typename T>
constexpr bool kFill = kOneOf<T, half, bfloat16_t, float, int16_t, uint16_t, int32_t, uint32_t, int8_t, uint8_t>;

template <typename T>
static inline void Vec(uint32_t op, const LocalTensor<T>& dst, const LocalTensor<T>* src0,
                       const LocalTensor<T>* src1, uint64_t scalar, int64_t count) {
  sk_twin_vector(op, Dtype<T>::value, &dst.ref_, src0 == nullptr ? nullptr : &src0->ref_,
                 src1 == nullptr ? nullptr : &src1->ref_, scalar, count);
}
}  // namespace sk_detail

#define SK_TWIN_FLOAT_ONLY(NAME) \
  "AscendC::" NAME ": the CPU twin (as Atlas A2/A3) supports T = half, bfloat16_t, float"
#define SK_TWIN_ARITH_ONLY(NAME) \
  "AscendC::" NAME ": the CPU twin (as Atlas A2/A3) supports T = half, bfloat16_t, float, int16_t, int32_t"

#define SK_TWIN_BINARY(NAME, OP, KIND, MSG)                                                                   \
  template <typename T>                                                                                       \
  static inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, \
                          const int32_t& count) {                                                             \
    static_assert(sk_detail::KIND<T>, MSG(#NAME));                                                            \
    sk_detail::Vec<T>(OP, dst, &src0, &src1, 0, count);                                                       \
  }
SK_TWIN_BINARY(Add, SK_TWIN_V_ADD, kArith, SK_TWIN_ARITH_ONLY)
SK_TWIN_BINARY(Sub, SK_TWIN_V_SUB, kArith, SK_TWIN_ARITH_ONLY)
SK_TWIN_BINARY(Mul, SK_TWIN_V_MUL, kArith, SK_TWIN_ARITH_ONLY)
SK_TWIN_BINARY(Div, SK_TWIN_V_DIV, kFloating, SK_TWIN_FLOAT_ONLY)
SK_TWIN_BINARY(Max, SK_TWIN_V_MAX, kArith, SK_TWIN_ARITH_ONLY)
SK_TWIN_BINARY(Min, SK_TWIN_V_MIN, kArith, SK_TWIN_ARITH_ONLY)
#undef SK_TWIN_BINARY

#define SK_TWIN_SCALAR(NAME, OP, KIND, MSG)                                                                    \
  template <typename T, bool isSetMask = true>                                                                 \
  static inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src,                               \
                          const sk_detail::Scalar<T>& scalarValue, const int32_t& count) {                     \
    static_assert(sk_detail::KIND<T>, MSG(#NAME));                                                             \
    sk_detail::Vec<T>(OP, dst, &src, nullptr, sk_detail::Bits<T>(scalarValue), count);                         \
  }
SK_TWIN_SCALAR(Adds, SK_TWIN_V_ADDS, kArith, SK_TWIN_ARITH_ONLY)
SK_TWIN_SCALAR(Muls, SK_TWIN_V_MULS, kArith, SK_TWIN_ARITH_ONLY)
SK_TWIN_SCALAR(Maxs, SK_TWIN_V_MAXS, kArith, SK_TWIN_ARITH_ONLY)
SK_TWIN_SCALAR(Mins, SK_TWIN_V_MINS, kArith, SK_TWIN_ARITH_ONLY)
SK_TWIN_SCALAR(LeakyRelu, SK_TWIN_V_LEAKY_RELU, kFloating, SK_TWIN_FLOAT_ONLY)
#undef SK_TWIN_SCALAR

#define SK_TWIN_UNARY(NAME, OP, KIND, MSG)                                                                       \
  template <typename T>                                                                                          \
  static inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count) {          \
    static_assert(sk_detail::KIND<T>, MSG(#NAME));                                                               \
    sk_detail::Vec<T>(OP, dst, &src, nullptr, 0, count);                                                         \
  }
SK_TWIN_UNARY(Exp, SK_TWIN_V_EXP, kFloating, SK_TWIN_FLOAT_ONLY)
SK_TWIN_UNARY(Ln, SK_TWIN_V_LN, kFloating, SK_TWIN_FLOAT_ONLY)
SK_TWIN_UNARY(Abs, SK_TWIN_V_ABS, kArith, SK_TWIN_ARITH_ONLY)
SK_TWIN_UNARY(Sqrt, SK_TWIN_V_SQRT, kFloating, SK_TWIN_FLOAT_ONLY)
SK_TWIN_UNARY(Rsqrt, SK_TWIN_V_RSQRT, kFloating, SK_TWIN_FLOAT_ONLY)
SK_TWIN_UNARY(Reciprocal, SK_TWIN_V_RECIPROCAL, kFloating, SK_TWIN_FLOAT_ONLY)
SK_TWIN_UNARY(Relu, SK_TWIN_V_RELU, kArith, SK_TWIN_ARITH_ONLY)
#undef SK_TWIN_UNARY

template <typename T>
static inline void Duplicate(const LocalTensor<T>& dst, const sk_detail::Scalar<T>& scalarValue,
                             const int32_t& count) {
  static_assert(sk_detail::kFill<T>, "AscendC::Duplicate: the CPU twin supports 8/16/32-bit element types");
  sk_detail::Vec<T>(SK_TWIN_V_DUPLICATE, dst, nullptr, nullptr, sk_detail::Bits<T>(scalarValue), count);
}

// Cast between element types with a RoundMode (CAST_NONE: exact, or round to
// nearest even when the conversion loses precision). Float to integer
// saturates; NaN becomes 0.
template <typename T, typename U>
static inline void Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& roundMode,
                        const uint32_t count) {
  static_assert(!std::is_same<T, double>::value && !std::is_same<U, double>::value,
                "AscendC::Cast: the CPU twin (as Atlas A2/A3) does not convert double");
  if constexpr (sk_detail::kInt4<T> || sk_detail::kInt4<U>) {
    // Atlas A2/A3 pair int4b_t with half only (int4b_t elements two a byte, count even).
    static_assert(std::is_same<T, half>::value || std::is_same<U, half>::value,
                  "the CPU twin does not implement Cast between int4b_t and a type other than half yet");
    sk_twin_cast_int4(sk_detail::kInt4<T> ? 1 : 0, static_cast<uint32_t>(roundMode), &dst.ref_, &src.ref_, count);
  } else {
    sk_twin_cast(sk_detail::Dtype<T>::value, sk_detail::Dtype<U>::value, static_cast<uint32_t>(roundMode),
                 &dst.ref_, &src.ref_, count);
  }
}

// Level-2 reductions: dst[0] = the result (ReduceMax/Min with calIndex:
// dst[1] holds the index's bits, as the hardware stores it).
template <typename T, bool isSetMask = true>
static inline void ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                             const LocalTensor<T>& sharedTmpBuffer, const int32_t count) {
  static_assert(sk_detail::kOneOf<T, half, float>, "AscendC::ReduceSum: the CPU twin supports T = half, float");
  sk_twin_reduce(SK_TWIN_V_REDUCE_SUM, sk_detail::Dtype<T>::value, &dst.ref_, &src.ref_, &sharedTmpBuffer.ref_,
                 count, 0);
}
template <typename T>
static inline void ReduceMax(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                             const LocalTensor<T>& sharedTmpBuffer, const int32_t count, bool calIndex = 0) {
  static_assert(sk_detail::kOneOf<T, half, float>, "AscendC::ReduceMax: the CPU twin supports T = half, float");
  sk_twin_reduce(SK_TWIN_V_REDUCE_MAX, sk_detail::Dtype<T>::value, &dst.ref_, &src.ref_, &sharedTmpBuffer.ref_,
                 count, calIndex ? 1 : 0);
}
template <typename T>
static inline void ReduceMin(const LocalTensor<T>& dst, const LocalTensor<T>& src,
                             const LocalTensor<T>& sharedTmpBuffer, const int32_t count, bool calIndex = 0) {
  static_assert(sk_detail::kOneOf<T, half, float>, "AscendC::ReduceMin: the CPU twin supports T = half, float");
  sk_twin_reduce(SK_TWIN_V_REDUCE_MIN, sk_detail::Dtype<T>::value, &dst.ref_, &src.ref_, &sharedTmpBuffer.ref_,
                 count, calIndex ? 1 : 0);
}

// Compare element-wise into a bit mask (bit i of the mask = element i, least
// significant bit first); count * sizeof(T) must be a multiple of 256.
template <typename T, typename U>
static inline void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                           CMPMODE cmpMode, uint32_t count) {
  static_assert(sk_detail::kOneOf<T, half, float, int32_t>,
                "AscendC::Compare: the CPU twin (as Atlas A2/A3) supports T = half, float, int32_t (EQ only)");
  static_assert(sk_detail::kOneOf<U, uint8_t, int8_t, uint16_t, uint32_t, uint64_t>,
                "AscendC::Compare: the mask tensor is uint8_t or int8_t (or the wider unsigned types Select reads)");
  sk_twin_compare(sk_detail::Dtype<T>::value, static_cast<uint32_t>(cmpMode), &dst.ref_, &src0.ref_, &src1.ref_, 0,
                  count);
}
template <typename T, typename U>
static inline void Compares(const LocalTensor<U>& dst, const LocalTensor<T>& src0,
                            const sk_detail::Scalar<T> src1, CMPMODE cmpMode, uint32_t count) {
  static_assert(sk_detail::kOneOf<T, half, float, int32_t>,
                "AscendC::Compares: the CPU twin supports T = half, float, int32_t");
  static_assert(sk_detail::kOneOf<U, uint8_t, int8_t, uint16_t, uint32_t, uint64_t>,
                "AscendC::Compares: the mask tensor is uint8_t or int8_t (or the wider unsigned types Select reads)");
  sk_twin_compare(sk_detail::Dtype<T>::value, static_cast<uint32_t>(cmpMode), &dst.ref_, &src0.ref_, nullptr,
                  sk_detail::Bits<T>(src1), count);
}

// Select by a bit mask: bit 1 takes src0, bit 0 takes src1 (a tensor, or the
// scalar in VSEL_TENSOR_SCALAR_MODE). VSEL_CMPMASK_SPR reuses the first
// 256/sizeof(T) bits for every 256-byte repeat.
template <typename T, typename U>
static inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
                          const LocalTensor<T>& src1, SELMODE selMode, uint32_t count) {
  static_assert(sk_detail::kOneOf<T, half, float>, "AscendC::Select: the CPU twin (as Atlas A2/A3) supports T = half, float");
  static_assert(sk_detail::kOneOf<U, uint8_t, uint16_t, uint32_t, uint64_t>,
                "AscendC::Select: the mask tensor is uint8_t, uint16_t, uint32_t or uint64_t");
  sk_twin_select(sk_detail::Dtype<T>::value, static_cast<uint32_t>(selMode), &dst.ref_, &selMask.ref_, &src0.ref_,
                 &src1.ref_, 0, count);
}
template <typename T, typename U>
static inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
                          sk_detail::Scalar<T> src1, SELMODE selMode, uint32_t count) {
  static_assert(sk_detail::kOneOf<T, half, float>, "AscendC::Select: the CPU twin (as Atlas A2/A3) supports T = half, float");
  static_assert(sk_detail::kOneOf<U, uint8_t, uint16_t, uint32_t, uint64_t>,
                "AscendC::Select: the mask tensor is uint8_t, uint16_t, uint32_t or uint64_t");
  sk_twin_select(sk_detail::Dtype<T>::value, static_cast<uint32_t>(selMode), &dst.ref_, &selMask.ref_, &src0.ref_,
                 nullptr, sk_detail::Bits<T>(src1), count);
}

#undef SK_TWIN_FLOAT_ONLY
#undef SK_TWIN_ARITH_ONLY

// ------------------------------------------------ repeat parameter structs

struct BinaryRepeatParams {
  BinaryRepeatParams() {}
  BinaryRepeatParams(uint8_t dstBlk, uint8_t src0Blk, uint8_t src1Blk, uint8_t dstRep, uint8_t src0Rep,
                     uint8_t src1Rep)
      : dstBlkStride(dstBlk), src0BlkStride(src0Blk), src1BlkStride(src1Blk), dstRepStride(dstRep),
        src0RepStride(src0Rep), src1RepStride(src1Rep) {}
  uint8_t dstBlkStride = 1, src0BlkStride = 1, src1BlkStride = 1;
  uint8_t dstRepStride = 8, src0RepStride = 8, src1RepStride = 8;
};
struct UnaryRepeatParams {
  UnaryRepeatParams() {}
  UnaryRepeatParams(uint16_t dstBlk, uint16_t srcBlk, uint8_t dstRep, uint8_t srcRep)
      : dstBlkStride(dstBlk), srcBlkStride(srcBlk), dstRepStride(dstRep), srcRepStride(srcRep) {}
  uint16_t dstBlkStride = 1, srcBlkStride = 1;
  uint8_t dstRepStride = 8, srcRepStride = 8;
};

// The mask/repeat forms of the vector instructions that take them are in
// sk_twin_vector_ext.h, the cube Matmul API in sk_twin_matmul.h.

}  // namespace AscendC

// CANN's kernels call GetTPipePtr() unqualified outside namespace AscendC as well.
using AscendC::GetTPipePtr;

#endif  // SK_TWIN_ASCENDC_H_
