// sk_twin_matmul.h - the cube Matmul high-level API on the CPU twin
// (lib/matmul_intf.h), written from the public Ascend C documentation:
// MatmulType, Matmul (Init with a TCubeTiling, SetOrgShape, SetSingleShape,
// SetTail, SetTensorA/B with transpose, SetBias/DisableBias, IterateAll,
// Iterate + GetTensorC, End) and REGIST_MATMUL_OBJ, for the ND format with
// A/B in GM; its MatmulConfig in sk_twin_matmul_config.h.
//
// Numerics (src/matmul.cc): every product is rounded to float (exact for
// half and bfloat16_t inputs), the products of one output are summed in
// float in k order (each add rounded to float),
// the bias is added in float, and the result is rounded once to C's type
// (nearest even). int8_t inputs accumulate exactly in int32_t.
//
// Where it runs: on the worker that calls it. A kernel of the Matmul
// "separated" style calls it on the AIC (ASCEND_IS_AIC); in the message
// style (REGIST_MATMUL_OBJ in a MIX launch) the AIC of a block leaves the
// kernel at REGIST_MATMUL_OBJ, as the hardware's AIC enters its message
// loop there, and each AIV's calls are computed on that AIV's thread from
// the same GM (the results in GM are the same; the twin has no message
// queue between the two).
#ifndef SK_TWIN_MATMUL_H_
#define SK_TWIN_MATMUL_H_

#include <cstdint>
#include <cstdio>

#include "sk_twin.h"
#include "sk_twin_adv_tiling.h"
#include "sk_twin_ascendc.h"
#include "sk_twin_ext.h"
#include "sk_twin_cube_types.h"
#include "sk_twin_matmul_config.h"


namespace AscendC {

template <TPosition POSITION, CubeFormat FORMAT, typename TYPE, bool ISTRANS = false,
          LayoutMode LAYOUT = LayoutMode::NONE, bool IBSHARE = false, TPosition SRCPOS = TPosition::GM>
struct MatmulType {
  constexpr static TPosition pos = POSITION;
  constexpr static CubeFormat format = FORMAT;
  using T = TYPE;
  constexpr static bool isTrans = ISTRANS;
  constexpr static LayoutMode layout = LAYOUT;
  constexpr static bool ibShare = IBSHARE;
  constexpr static TPosition srcPos = SRCPOS;
};

namespace sk_detail {
template <typename T>
constexpr bool kCubeIn = kOneOf<T, half, bfloat16_t, float, int8_t, int4b_t>;
// The element code the Matmul hook gets (int4b_t has none of its own elsewhere).
template <typename T>
struct MatmulDtype {
  static constexpr uint32_t value = Dtype<T>::value;
};
template <>
struct MatmulDtype<int4b_t> {
  static constexpr uint32_t value = SK_TWIN_MM_DT_INT4;
};
template <typename T>
constexpr bool kCubeOut = kOneOf<T, half, bfloat16_t, float, int32_t, int8_t>;
}  // namespace sk_detail

// User copy-in/copy-out callbacks of a Matmul (the device calls them instead of its own copies).
template <void (*DataCopyOut)(const __gm__ void* gm, const LocalTensor<int8_t>& co1Local,
                              const void* dataCopyOutParams, const uint64_t tilingPtr, const uint64_t dataPtr) = nullptr,
          void (*CopyA1)(const LocalTensor<int8_t>& aMatrix, const __gm__ void* gm, int row, int col, int useM,
                         int useK, const uint64_t tilingPtr, const uint64_t dataPtr) = nullptr,
          void (*CopyB1)(const LocalTensor<int8_t>& bMatrix, const __gm__ void* gm, int row, int col, int useK,
                         int useN, const uint64_t tilingPtr, const uint64_t dataPtr) = nullptr>
struct MatmulCallBackFunc {
  constexpr static auto kDataCopyOut = DataCopyOut;
  constexpr static auto kCopyA1 = CopyA1;
  constexpr static auto kCopyB1 = CopyB1;
};

namespace sk_detail {
template <class T>
struct IsCallBacks : std::false_type {};
template <auto O, auto A, auto B>
struct IsCallBacks<MatmulCallBackFunc<O, A, B>> : std::true_type {};
// The MatmulCallBackFunc among a Matmul's trailing template arguments (none: no callbacks).
template <class... Rest>
struct CallBacksOf {
  using type = MatmulCallBackFunc<>;
};
template <class First, class... Rest>
struct CallBacksOf<First, Rest...> {
  using type = std::conditional_t<IsCallBacks<First>::value, First, typename CallBacksOf<Rest...>::type>;
};
}  // namespace sk_detail

template <class A_TYPE, class B_TYPE, class C_TYPE, class BIAS_TYPE = C_TYPE, const auto& MM_CFG = CFG_NORM,
          class... Rest>
class Matmul {
 public:
  using SrcAT = typename A_TYPE::T;
  using SrcBT = typename B_TYPE::T;
  using DstT = typename C_TYPE::T;
  using BiasT = typename BIAS_TYPE::T;
  static_assert(sk_detail::kCubeIn<SrcAT> && sk_detail::kCubeIn<SrcBT>,
                "AscendC::Matmul: the CPU twin supports A/B of half, bfloat16_t, float, int8_t, int4b_t");
  static_assert(sk_detail::kCubeOut<DstT>, "AscendC::Matmul: the CPU twin supports C of half, bfloat16_t, float, int32_t, int8_t (quantised)");
  // A and B come from GM, or from L1 (TSCM, or A1/B1) where the kernel put them in the NZ format.
  static constexpr bool kALocal = A_TYPE::pos == TPosition::TSCM || A_TYPE::pos == TPosition::A1;
  static constexpr bool kBLocal = B_TYPE::pos == TPosition::TSCM || B_TYPE::pos == TPosition::B1;
  static_assert((A_TYPE::pos == TPosition::GM || kALocal) && (B_TYPE::pos == TPosition::GM || kBLocal),
                "AscendC::Matmul: the CPU twin takes A and B in GM or in L1 (TPosition::TSCM, A1/B1)");
  // In L1 the cube reads fractals: A/B there are NZ whatever format the MatmulType names (CANN's kernels name the
  // GM format, ND, and fill TSCM with an Nd2Nz copy).
  static_assert((!kALocal || A_TYPE::format == CubeFormat::NZ || A_TYPE::format == CubeFormat::ND) &&
                    (!kBLocal || B_TYPE::format == CubeFormat::NZ || B_TYPE::format == CubeFormat::ND),
                "AscendC::Matmul: the CPU twin reads A and B in L1 declared ND or NZ (held as NZ)");
  // The configuration fields that change what is computed (the rest only schedule the same product).
  static_assert(!MM_CFG.enableRelu, "the CPU twin does not implement MatmulConfig::enableRelu yet");
  static_assert(!MM_CFG.isPartialOutput, "the CPU twin does not implement MatmulConfig::isPartialOutput yet");
  static_assert(!MM_CFG.intraBlockPartSum, "the CPU twin does not implement MatmulConfig::intraBlockPartSum yet");
  static_assert(!MM_CFG.isEnableChannelSplit,
                "the CPU twin does not implement MatmulConfig::isEnableChannelSplit yet");
  using CallBacks = typename sk_detail::CallBacksOf<Rest...>::type;
  static constexpr bool kCbA = CallBacks::kCopyA1 != nullptr, kCbB = CallBacks::kCopyB1 != nullptr;
  static_assert(CallBacks::kDataCopyOut == nullptr,
                "the CPU twin does not implement the MatmulCallBackFunc DataCopyOut callback yet");
  static_assert((!kCbA || !kALocal) && (!kCbB || !kBLocal),
                "AscendC::Matmul: a CopyA1/CopyB1 callback copies from GM; its operand's MatmulType position is GM");
  static_assert(!MM_CFG.isNBatch, "the CPU twin does not implement MatmulConfig::isNBatch (IterateNBatch) yet");

  void Init(const TCubeTiling* cubeTiling, TPipe* tpipe = nullptr) {
    if (cubeTiling == nullptr) return;
    tiling_ = *cubeTiling;
    // The copy callbacks fill L1 tiles the Matmul takes from the kernel's TPipe, as on the device.
    if constexpr (kCbA || kCbB) {
      if (tpipe == nullptr) {
        ::sk_twin_matmul_fail("Init", "a Matmul with CopyA1/CopyB1 callbacks got no TPipe",
                              "Init(&tiling, &pipe) (or REGIST_MATMUL_OBJ(&pipe, ...)): the callbacks' L1 tiles "
                              "come from the pipe");
      }
      if constexpr (kCbA) tpipe->InitBuffer(cbTileA_, TileBytes<SrcAT>(TileM(), TileKa()));
      if constexpr (kCbB) tpipe->InitBuffer(cbTileB_, TileBytes<SrcBT>(TileKb(), TileN()));
    }
    orgM_ = tiling_.M;
    orgN_ = tiling_.N;
    orgKa_ = tiling_.Ka;
    orgKb_ = tiling_.Kb;
    singleM_ = tiling_.singleCoreM;
    singleN_ = tiling_.singleCoreN;
    singleK_ = tiling_.singleCoreK;
    hasBias_ = false;
    // BasicBlock templates fix the base block at compile time; the tiling must give the same one.
    if constexpr ((MM_CFG.doBasicBlock || MM_CFG.doSpecialBasicBlock) &&
                  (MM_CFG.basicM != 0 || MM_CFG.basicN != 0 || MM_CFG.basicK != 0)) {
      if (static_cast<int64_t>(MM_CFG.basicM) != tiling_.baseM || static_cast<int64_t>(MM_CFG.basicN) != tiling_.baseN ||
          static_cast<int64_t>(MM_CFG.basicK) != tiling_.baseK) {
        char problem[160];
        std::snprintf(problem, sizeof problem,
                      "MatmulConfig basicM/N/K %u/%u/%u differ from the tiling's baseM/N/K %d/%d/%d",
                      static_cast<unsigned>(MM_CFG.basicM), static_cast<unsigned>(MM_CFG.basicN),
                      static_cast<unsigned>(MM_CFG.basicK), static_cast<int>(tiling_.baseM),
                      static_cast<int>(tiling_.baseN), static_cast<int>(tiling_.baseK));
        ::sk_twin_matmul_fail("Init", problem, "the same base block in the configuration and the tiling");
      }
    }
  }
  void SetOrgShape(int orgM, int orgN, int orgK) { SetOrgShape(orgM, orgN, orgK, orgK); }
  void SetOrgShape(int orgM, int orgN, int orgKa, int orgKb, int orgKc = 0) {
    (void)orgKc;
    orgM_ = orgM;
    orgN_ = orgN;
    orgKa_ = orgKa;
    orgKb_ = orgKb;
  }
  void SetSingleShape(int singleM, int singleN, int singleK) {
    singleM_ = singleM;
    singleN_ = singleN;
    singleK_ = singleK;
  }
  void SetTail(int tailM = -1, int tailN = -1, int tailK = -1) {
    if (tailM >= 0) singleM_ = tailM;
    if (tailN >= 0) singleN_ = tailN;
    if (tailK >= 0) singleK_ = tailK;
  }
  void SetTensorA(const GlobalTensor<SrcAT>& gm, bool isTransposeA = false) {
    static_assert(!kALocal, "Matmul::SetTensorA: A's MatmulType is in L1 (TSCM/A1); pass the LocalTensor");
    a_ = gm.g_;
    transA_ = isTransposeA;
    hasA_ = true;
  }
  void SetTensorB(const GlobalTensor<SrcBT>& gm, bool isTransposeB = false) {
    static_assert(!kBLocal, "Matmul::SetTensorB: B's MatmulType is in L1 (TSCM/B1); pass the LocalTensor");
    b_ = gm.g_;
    transB_ = isTransposeB;
    hasB_ = true;
  }
  // A/B already in L1, NZ: column blocks as high as the single shape's stored rows aligned to 16 (M, or K
  // transposed, for A; K, or N transposed, for B), as the kernel's Nd2Nz copy put them.
  void SetTensorA(const LocalTensor<SrcAT>& l1, bool isTransposeA = false) {
    static_assert(kALocal, "Matmul::SetTensorA(LocalTensor): A's MatmulType position is GM; pass a GlobalTensor");
    aL1_ = l1.ref_;
    transA_ = isTransposeA;
    hasA_ = true;
  }
  void SetTensorB(const LocalTensor<SrcBT>& l1, bool isTransposeB = false) {
    static_assert(kBLocal, "Matmul::SetTensorB(LocalTensor): B's MatmulType position is GM; pass a GlobalTensor");
    bL1_ = l1.ref_;
    transB_ = isTransposeB;
    hasB_ = true;
  }
  // What the copy callbacks (MatmulCallBackFunc) receive as tilingPtr / dataPtr.
  void SetUserDefInfo(const uint64_t tilingPtr) { userDefInfo_ = tilingPtr; }
  void SetSelfDefineData(const uint64_t dataPtr) { selfDefineData_ = dataPtr; }
  // With enableSetBias false the device compiles the bias out: SetBias is accepted and no bias is added.
  void SetBias(const GlobalTensor<BiasT>& biasGlobal) {
    bias_ = biasGlobal.g_;
    hasBias_ = MM_CFG.enableSetBias;
  }
  void DisableBias() { hasBias_ = false; }
  // Quantisation on the way out of L0C (int8_t/int4b_t A/B to half or int8_t C, half/bfloat16_t A/B to int8_t C):
  // every element of C by one QUANT_PRE word or column j by element j of a uint64_t vector, as Fixpipe's
  // (V)DEQF16, (V)REQ8, (V)QF322B8_PRE do it (src/fixquant.h).
  void SetQuantScalar(const uint64_t quantScalar) {
    quant_ = 1;
    quantScalar_ = quantScalar;
  }
  void SetQuantVector(const GlobalTensor<uint64_t>& quantTensor) {
    quant_ = 2;
    quantVector_ = quantTensor.g_;
  }
  void ClearBias() { hasBias_ = false; }
  // The GM the asynchronous mode (Iterate<false>() + GetTensorC()) leaves its C blocks in.
  void SetWorkspace(GM_ADDR addr, int size) {
    workspace_ = SkTwinGlobalRef{reinterpret_cast<uint8_t*>(addr), static_cast<uint64_t>(size < 0 ? 0 : size), 0};
  }
  template <class T>
  void SetWorkspace(GlobalTensor<T>& addr) {
    workspace_ = addr.g_;
  }
  template <class T>
  void SetLocalWorkspace(const LocalTensor<T>&) {}
  void SetHF32(bool, int32_t = 0) {}
  void SetSubBlockIdx(uint8_t) {}

  template <bool sync = true>
  void IterateAll(const GlobalTensor<DstT>& gm, uint8_t enAtomic = 0, bool enSequentialWrite = false,
                  bool waitIterateAll = false, bool fakeMsg = false) {
    (void)enSequentialWrite;
    (void)waitIterateAll;
    (void)fakeMsg;
    SkTwinMatmul m = Call("IterateAll", 0, 0, singleM_, singleN_);
    m.c = &gm.g_;
    m.atomic = enAtomic;
    ::sk_twin_matmul(&m);
  }
  // Moves to the next baseM x baseN block of C (in tiling.iterateOrder);
  // false when every block was visited. GetTensorC computes the block.
  template <bool sync = true>
  bool Iterate(bool enPartialSum = false) {
    (void)enPartialSum;
    fetched_ = false;
    const int64_t bm = tiling_.baseM > 0 ? tiling_.baseM : singleM_, bn = tiling_.baseN > 0 ? tiling_.baseN : singleN_;
    if (bm <= 0 || bn <= 0) return false;
    const int64_t mb = (singleM_ + bm - 1) / bm, nb = (singleN_ + bn - 1) / bn;
    if (iter_ >= mb * nb) {
      iter_ = 0;
      return false;
    }
    // The configuration's iterateOrder takes effect with ScheduleType::OUTER_PRODUCT, else the tiling's.
    const bool m_first = kCfgOrder ? MM_CFG.iterateOrder == IterateOrder::ORDER_M : tiling_.iterateOrder == 0;
    blockM_ = m_first ? iter_ % mb : iter_ / nb;
    blockN_ = m_first ? iter_ / mb : iter_ % nb;
    ++iter_;
    return true;
  }
  // Moves to the next block as Iterate() does and computes it into co1Local (TPosition::CO1, L0C) as 16 x 16 NZ
  // fractals; enPartialSum adds it to what co1Local holds. False (nothing computed) when every block was visited.
  template <bool sync = true>
  bool Iterate(bool enPartialSum, const LocalTensor<DstT>& co1Local) {
    static_assert(sk_detail::kOneOf<DstT, float, int32_t>,
                  "Matmul::Iterate(enPartialSum, LocalTensor): L0C holds float or int32_t (C_TYPE's type)");
    if (!Iterate<sync>(enPartialSum)) return false;
    SkTwinMatmul m = Block("Iterate(L0C)");
    m.c_local = &co1Local.ref_;
    m.c_l0c = 1;
    m.c_accumulate = enPartialSum ? 1 : 0;
    ::sk_twin_matmul(&m);
    return true;
  }
  template <bool sync = true>
  void GetTensorC(const GlobalTensor<DstT>& gm, uint8_t enAtomic = 0, bool enSequentialWrite = false) {
    SkTwinMatmul m = Block("GetTensorC");
    m.c = &gm.g_;
    if (enSequentialWrite) {  // the block alone at gm, its rows its own width apart; else at its place in C
      m.c_block = 1;
      m.n_stride = m.n;
    }
    m.atomic = enAtomic;
    ::sk_twin_matmul(&m);
  }
  template <bool sync = true>
  void GetTensorC(const LocalTensor<DstT>& c, uint8_t enAtomic = 0, bool enSequentialWrite = false) {
    (void)enSequentialWrite;
    SkTwinMatmul m = Block("GetTensorC(LocalTensor)");
    m.c_local = &c.ref_;
    m.atomic = enAtomic;
    ::sk_twin_matmul(&m);
  }
  // The asynchronous form: after Iterate<false>(), each call returns the next baseM x baseN block of C (the one
  // Iterate chose, then the following ones in its order) as a GlobalTensor in the workspace, the block's rows
  // its own width apart; block k takes slot k modulo the blocks the workspace holds.
  template <bool sync = false>
  GlobalTensor<DstT> GetTensorC(uint8_t enAtomic = 0, bool enSequentialWrite = false) {
    (void)enSequentialWrite;
    if (fetched_ && !Iterate<false>()) {
      ::sk_twin_matmul_fail("GetTensorC()", "every block of C was already fetched", "one GetTensorC() a block");
    }
    fetched_ = true;
    SkTwinMatmul m = Block("GetTensorC()");
    const int64_t bm = tiling_.baseM > 0 ? tiling_.baseM : singleM_, bn = tiling_.baseN > 0 ? tiling_.baseN : singleN_;
    const uint64_t slot = static_cast<uint64_t>(bm * bn) * sizeof(DstT);
    if (workspace_.base == nullptr || (workspace_.size_bytes != 0 && workspace_.size_bytes < slot)) {
      ::sk_twin_matmul_fail("GetTensorC()", "the workspace is missing or smaller than one baseM x baseN block of C",
                            "SetWorkspace(gm, size) with at least baseM * baseN * sizeof(C) bytes before Iterate");
    }
    const uint64_t slots = workspace_.size_bytes == 0 ? 1 : workspace_.size_bytes / slot;
    SkTwinGlobalRef view = workspace_;
    view.offset_bytes += (static_cast<uint64_t>(iter_ - 1) % slots) * slot;
    m.c = &view;
    m.c_block = 1;
    m.n_stride = m.n;
    m.atomic = enAtomic;
    ::sk_twin_matmul(&m);
    GlobalTensor<DstT> out;
    out.g_ = view;
    return out;
  }
  void End() { iter_ = 0; }

  // Batch matmul, NORMAL layout (MatmulClient's form): batchA A matrices and batchB B matrices one after another
  // (matrixStrideA/B elements apart; 0: one stored matrix of the org shape), C the batches' single shapes one after
  // another; with isBiasBatch each batch has its own N bias values. batchA == batchB (no broadcast).
  template <bool sync = true, bool waitIterateBatch = false>
  void IterateBatch(const GlobalTensor<DstT>& gm, uint32_t batchA, uint32_t batchB, bool enSequentialWrite,
                    const uint32_t matrixStrideA = 0, const uint32_t matrixStrideB = 0,
                    const uint32_t matrixStrideC = 0, const bool enPartialSum = false, const uint8_t enAtomic = 0) {
    (void)enSequentialWrite;
    (void)matrixStrideC;  // reserved
    BatchImpl(gm, batchA, batchB, matrixStrideA, matrixStrideB, enPartialSum, enAtomic);
  }
  // How many batches one round of a multi-batch output holds: a schedule, the results are the same.
  void SetNBatchOutNum(int32_t batchOutNum) { nBatchOutNum_ = batchOutNum; }

 protected:
  void BatchImpl(const GlobalTensor<DstT>& gm, uint32_t batchA, uint32_t batchB, uint32_t strideA, uint32_t strideB,
                 bool enPartialSum, uint8_t enAtomic) {
    if (enPartialSum) {
      ::sk_twin_matmul_fail("IterateBatch", "enPartialSum is true",
                            "enPartialSum false (the CPU twin does not keep L0C between IterateBatch calls)");
    }
    if (batchA != batchB) {
      char problem[96];
      std::snprintf(problem, sizeof problem, "batchA %u and batchB %u differ", static_cast<unsigned>(batchA),
                    static_cast<unsigned>(batchB));
      ::sk_twin_matmul_fail("IterateBatch", problem,
                            "the same batch count for A and B (the CPU twin does not broadcast batches yet)");
    }
    const SkTwinGlobalRef a0 = a_, b0 = b_, bias0 = bias_;
    const uint64_t sa = strideA != 0 ? strideA : StoredSize<SrcAT>(A_TYPE::format, transA_ ? orgKa_ : orgM_,
                                                                   transA_ ? orgM_ : orgKa_);
    const uint64_t sb = strideB != 0 ? strideB : StoredSize<SrcBT>(B_TYPE::format, transB_ ? orgN_ : orgKb_,
                                                                   transB_ ? orgKb_ : orgN_);
    for (uint32_t i = 0; i < batchA; ++i) {
      a_ = a0;
      b_ = b0;
      bias_ = bias0;
      a_.offset_bytes += i * sa * sizeof(SrcAT);
      b_.offset_bytes += i * sb * sizeof(SrcBT);
      if constexpr (MM_CFG.isBiasBatch) bias_.offset_bytes += i * static_cast<uint64_t>(orgN_) * sizeof(BiasT);
      SkTwinMatmul m = Call("IterateBatch", 0, 0, singleM_, singleN_);
      SkTwinGlobalRef c = gm.g_;
      c.offset_bytes += i * static_cast<uint64_t>(singleM_) * singleN_ * sizeof(DstT);
      m.c = &c;
      m.ldc = singleN_;
      m.atomic = enAtomic;
      ::sk_twin_matmul(&m);
    }
    a_ = a0;
    b_ = b0;
    bias_ = bias0;
  }
  // Elements of one stored rows x cols matrix: ND, or NZ with rows aligned to 16 and columns to C0.
  template <typename T>
  static uint64_t StoredSize(CubeFormat f, int64_t rows, int64_t cols) {
    if (f != CubeFormat::NZ) return static_cast<uint64_t>(rows * cols);
    const int64_t c0 = 32 / static_cast<int64_t>(sizeof(T));
    return static_cast<uint64_t>(Align16(rows) * ((cols + c0 - 1) / c0 * c0));
  }

 private:
  SkTwinMatmul Call(const char* name, int64_t row0, int64_t col0, int64_t m, int64_t n) {
    if (!hasA_ || !hasB_) {
      ::sk_twin_matmul_fail(name, hasA_ ? "SetTensorB was not called" : "SetTensorA was not called",
                            "SetTensorA and SetTensorB before IterateAll/Iterate");
    }
    SkTwinMatmul mm{};
    mm.call = name;
    mm.a = &a_;
    mm.b = &b_;
    mm.bias = hasBias_ ? &bias_ : nullptr;
    mm.a_dtype = sk_detail::MatmulDtype<SrcAT>::value;
    mm.b_dtype = sk_detail::MatmulDtype<SrcBT>::value;
    mm.c_dtype = sk_detail::Dtype<DstT>::value;
    mm.bias_dtype = sk_detail::Dtype<BiasT>::value;
    mm.a_format = static_cast<uint32_t>(kALocal ? CubeFormat::NZ : A_TYPE::format);
    mm.b_format = static_cast<uint32_t>(kBLocal ? CubeFormat::NZ : B_TYPE::format);
    mm.c_format = static_cast<uint32_t>(C_TYPE::format);
    mm.trans_a = transA_;
    mm.trans_b = transB_;
    mm.m = m;
    mm.n = n;
    mm.k = singleK_;
    mm.row0 = row0;
    mm.col0 = col0;
    mm.lda = transA_ ? orgM_ : orgKa_;
    mm.ldb = transB_ ? orgKb_ : orgN_;
    mm.ldc = orgN_;
    mm.n_stride = n;
    if constexpr (kALocal) mm.a_local = &aL1_;
    if constexpr (kBLocal) mm.b_local = &bL1_;
    if constexpr (kCbA || kCbB) LoadByCallBacks(name, mm);
    // NZ column blocks: in L1 as high as the single shape, in GM as the org shape (rows aligned to 16).
    mm.a_height = Align16(kALocal ? (transA_ ? singleK_ : singleM_) : (transA_ ? orgKa_ : orgM_));
    mm.b_height = Align16(kBLocal ? (transB_ ? singleN_ : singleK_) : (transB_ ? orgN_ : orgKb_));
    mm.quant = quant_;
    mm.quant_scalar = quantScalar_;
    mm.quant_vector = quant_ == 2 ? &quantVector_ : nullptr;
    return mm;
  }
  SkTwinMatmul Block(const char* name) {
    const int64_t bm = tiling_.baseM > 0 ? tiling_.baseM : singleM_, bn = tiling_.baseN > 0 ? tiling_.baseN : singleN_;
    if (iter_ == 0) ::sk_twin_matmul_fail(name, "no Iterate() returned true before it", "call Iterate() first");
    const int64_t r0 = blockM_ * bm, c0 = blockN_ * bn;
    const int64_t m = singleM_ - r0 < bm ? singleM_ - r0 : bm, n = singleN_ - c0 < bn ? singleN_ - c0 : bn;
    SkTwinMatmul mm = Call(name, r0, c0, m, n);
    mm.n_stride = bn;
    return mm;
  }

  static int64_t Align16(int64_t v) { return (v + 15) / 16 * 16; }
  // The L1 tiles a callback fills: stepM x stepKa base blocks of A, stepKb x stepN of B (a step of 0 counts as 1;
  // a base of 0 as the whole single extent), clipped to the single shape.
  static int64_t Tile(int32_t step, int32_t base, int64_t single) {
    const int64_t t = static_cast<int64_t>(step > 0 ? step : 1) * (base > 0 ? base : single);
    return t > 0 && t < single ? t : (single > 0 ? single : 1);
  }
  int64_t TileM() const { return Tile(tiling_.stepM, tiling_.baseM, tiling_.singleCoreM); }
  int64_t TileN() const { return Tile(tiling_.stepN, tiling_.baseN, tiling_.singleCoreN); }
  int64_t TileKa() const { return Tile(tiling_.stepKa, tiling_.baseK, tiling_.singleCoreK); }
  int64_t TileKb() const { return Tile(tiling_.stepKb, tiling_.baseK, tiling_.singleCoreK); }
  template <typename T>
  static uint32_t TileBytes(int64_t a, int64_t b) {
    return static_cast<uint32_t>(((a + 31) / 32 * 32) * ((b + 31) / 32 * 32) * static_cast<int64_t>(sizeof(T)));
  }
  // Calls the callbacks for every L1 tile of the single shape, tile (row, col) of size (useM, useK) for A and
  // (useK, useN) for B in M/K/N order whatever the transposition, and gathers what they put in L1 (NZ) into an
  // image the engine reads in place of the GM operand.
  void LoadByCallBacks(const char* name, SkTwinMatmul& mm) {
    if constexpr (kCbA) {
      const int64_t tm = TileM(), tk = TileKa();
      const int64_t rows = transA_ ? singleK_ : singleM_, cols = transA_ ? singleM_ : singleK_;
      ::sk_twin_matmul_image(0, sk_detail::Dtype<SrcAT>::value, rows, cols, &aImage_);
      LocalTensor<int8_t> tile = cbTileA_.template Get<int8_t>();
      for (int64_t i = 0; i * tm < singleM_; ++i) {
        for (int64_t j = 0; j * tk < singleK_; ++j) {
          const int64_t um = singleM_ - i * tm < tm ? singleM_ - i * tm : tm;
          const int64_t uk = singleK_ - j * tk < tk ? singleK_ - j * tk : tk;
          CallBacks::kCopyA1(tile, a_.base + a_.offset_bytes, static_cast<int>(i), static_cast<int>(j),
                             static_cast<int>(um), static_cast<int>(uk), userDefInfo_, selfDefineData_);
          if (transA_) {
            ::sk_twin_matmul_tile(name, 0, &tile.ref_, j * tk, i * tm, uk, um);
          } else {
            ::sk_twin_matmul_tile(name, 0, &tile.ref_, i * tm, j * tk, um, uk);
          }
        }
      }
      mm.a = &aImage_;
      mm.a_format = static_cast<uint32_t>(CubeFormat::ND);
      mm.lda = cols;
    }
    if constexpr (kCbB) {
      const int64_t tk = TileKb(), tn = TileN();
      const int64_t rows = transB_ ? singleN_ : singleK_, cols = transB_ ? singleK_ : singleN_;
      ::sk_twin_matmul_image(1, sk_detail::Dtype<SrcBT>::value, rows, cols, &bImage_);
      LocalTensor<int8_t> tile = cbTileB_.template Get<int8_t>();
      for (int64_t i = 0; i * tk < singleK_; ++i) {
        for (int64_t j = 0; j * tn < singleN_; ++j) {
          const int64_t uk = singleK_ - i * tk < tk ? singleK_ - i * tk : tk;
          const int64_t un = singleN_ - j * tn < tn ? singleN_ - j * tn : tn;
          CallBacks::kCopyB1(tile, b_.base + b_.offset_bytes, static_cast<int>(i), static_cast<int>(j),
                             static_cast<int>(uk), static_cast<int>(un), userDefInfo_, selfDefineData_);
          if (transB_) {
            ::sk_twin_matmul_tile(name, 1, &tile.ref_, j * tn, i * tk, un, uk);
          } else {
            ::sk_twin_matmul_tile(name, 1, &tile.ref_, i * tk, j * tn, uk, un);
          }
        }
      }
      mm.b = &bImage_;
      mm.b_format = static_cast<uint32_t>(CubeFormat::ND);
      mm.ldb = cols;
    }
  }
  static constexpr bool kCfgOrder =
      MM_CFG.scheduleType == ScheduleType::OUTER_PRODUCT && MM_CFG.iterateOrder != IterateOrder::UNDEF;
  TCubeTiling tiling_{};
  int64_t orgM_ = 0, orgN_ = 0, orgKa_ = 0, orgKb_ = 0;
  int64_t singleM_ = 0, singleN_ = 0, singleK_ = 0;
  SkTwinGlobalRef a_{nullptr, 0, 0}, b_{nullptr, 0, 0}, bias_{nullptr, 0, 0};
  SkTwinLocalRef aL1_{}, bL1_{};
  TBuf<TPosition::A1> cbTileA_;
  TBuf<TPosition::B1> cbTileB_;
  SkTwinGlobalRef aImage_{nullptr, 0, 0}, bImage_{nullptr, 0, 0};
  uint64_t userDefInfo_ = 0, selfDefineData_ = 0;
  int32_t nBatchOutNum_ = 0;
  bool hasA_ = false, hasB_ = false, hasBias_ = false;
  uint32_t transA_ = 0, transB_ = 0;
  uint32_t quant_ = 0;
  bool fetched_ = false;
  SkTwinGlobalRef workspace_{nullptr, 0, 0};
  uint64_t quantScalar_ = 0;
  SkTwinGlobalRef quantVector_{nullptr, 0, 0};
  int64_t iter_ = 0, blockM_ = 0, blockN_ = 0;
};

// The cube-side object (what Matmul is in a cube-only build): Matmul's calls, and IterateBatch in its cube form
// with the batch counts from SetBatchNum.
template <class A_TYPE, class B_TYPE, class C_TYPE, class BIAS_TYPE = C_TYPE, const auto& MM_CFG = CFG_NORM,
          class... Rest>
class MatmulImpl : public Matmul<A_TYPE, B_TYPE, C_TYPE, BIAS_TYPE, MM_CFG, Rest...> {
  using Base = Matmul<A_TYPE, B_TYPE, C_TYPE, BIAS_TYPE, MM_CFG, Rest...>;

 public:
  void SetBatchNum(int32_t batchA, int32_t batchB) {
    batchA_ = batchA;
    batchB_ = batchB;
  }
  void IterateBatch(const GlobalTensor<typename Base::DstT>& gm, bool enPartialSum, uint8_t enAtomic,
                    bool enSequentialWrite, const uint32_t matrixStrideA = 0, const uint32_t matrixStrideB = 0,
                    const uint32_t matrixStrideC = 0) {
    (void)enSequentialWrite;
    (void)matrixStrideC;
    if (batchA_ <= 0 || batchB_ <= 0) {
      ::sk_twin_matmul_fail("IterateBatch", "no positive batch counts", "SetBatchNum(batchA, batchB) first");
    }
    this->BatchImpl(gm, static_cast<uint32_t>(batchA_), static_cast<uint32_t>(batchB_), matrixStrideA, matrixStrideB,
                    enPartialSum, enAtomic);
  }

 private:
  int32_t batchA_ = 0, batchB_ = 0;
};

namespace sk_detail {
static inline void MatmulInitAll(TPipe*) {}
template <class MM, class... More>
static inline void MatmulInitAll(TPipe* pipe, MM& mm, const void* tiling, More&&... more) {
  mm.Init(static_cast<const TCubeTiling*>(tiling), pipe);
  MatmulInitAll(pipe, more...);
}
template <class MM>
static inline void MatmulInitAll(TPipe* pipe, MM& mm) {
  mm.Init(nullptr, pipe);
}
}  // namespace sk_detail

}  // namespace AscendC

namespace matmul {
// CANN's kernels write `using namespace matmul;` and then name AscendC's types.
using namespace AscendC;
using AscendC::MatmulImpl;
}  // namespace matmul

// Registers the Matmul objects with their tilings (each may be nullptr). In a
// MIX launch the AIC leaves the kernel here (it would serve the AIVs' calls).
#define REGIST_MATMUL_OBJ(tpipe, workspace, ...)                       \
  do {                                                                 \
    (void)(workspace);                                                 \
    if (::sk_twin_matmul_is_server()) return;                          \
    ::AscendC::sk_detail::MatmulInitAll((tpipe), __VA_ARGS__);         \
  } while (0)

#endif  // SK_TWIN_MATMUL_H_
