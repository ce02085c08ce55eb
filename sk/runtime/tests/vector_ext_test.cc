// The wider vector surface (sk_twin_vector_ext.h) against plain reference
// loops written here: the lane addresses of a mask/repeat call are worked out
// from the documented layout (repeat stride, block stride, 32-byte blocks),
// half results are rounded by the nearest-even search of ascendc_util.h. The
// rules (repeatTime over 255, a mask beyond a repeat, lanes past the buffer,
// misaligned operands, a mismatched atomic type) fail with their message.
#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "ascendc_util.h"
#include "ub_test_util.h"

using namespace AscendC;
using ascendc_test::H;
using ascendc_test::RefHalf;
using ascendc_test::RunAiv;
using ub_test::At;
using ub_test::LaneByte;
using ub_test::Put;
using ub_test::Violation;
using ub_test::WithUb;

namespace {

TWIN_TEST(add_half_continuous_mask_with_strides) {
  // src0 at 0 (block stride 2, repeat stride 16), src1 at 4096 (contiguous), dst at 8192 (block stride 1,
  // repeat stride 8); mask 100 of 128 lanes, 2 repeats. Lanes 100..127 of dst keep their value.
  std::vector<uint8_t> io(16384);
  for (size_t k = 0; k < 4096 / 2; ++k) {
    Put(&io, 2 * k, H(0.1 * static_cast<double>(k % 97) - 3.0));
    Put(&io, 4096 + 2 * k, H(1.0 / (1 + k % 13)));
    Put(&io, 8192 + 2 * k, H(-7.0));
  }
  const std::vector<uint8_t> before = io;
  WithUb(&io, [](LocalTensor<uint8_t>& ub) {
    LocalTensor<half> h = ub.ReinterpretCast<half>();
    Add(h[4096], h, h[2048], 100, 2, {1, 2, 1, 8, 16, 8});
  });
  int bad = 0;
  for (size_t r = 0; r < 2; ++r) {
    for (size_t i = 0; i < 128; ++i) {
      const size_t d = 8192 + LaneByte(r, i, 2, 1, 8);
      uint16_t want = At<uint16_t>(before, d);
      if (i < 100) {
        const double x = At<half>(before, LaneByte(r, i, 2, 2, 16)).ToDouble();
        const double y = At<half>(before, 4096 + LaneByte(r, i, 2, 1, 8)).ToDouble();
        want = RefHalf(x + y);
      }
      if (At<uint16_t>(io, d) != want) ++bad;
    }
  }
  CHECK_EQ(bad, 0);
}

TWIN_TEST(muls_float_bit_mask_and_repeat_stride_zero) {
  // Bit mask 0x..a5 on the 64 float lanes; srcRepStride 0 re-reads the first 256 bytes every repeat.
  std::vector<uint8_t> io(8192);
  for (size_t k = 0; k < 1024; ++k) Put(&io, 4 * k, static_cast<float>(k) * 0.5f + 0.25f);
  const std::vector<uint8_t> before = io;
  const uint64_t bits = 0xf0f0a5a5c3c30f0full;
  WithUb(&io, [bits](LocalTensor<uint8_t>& ub) {
    LocalTensor<float> f = ub.ReinterpretCast<float>();
    const uint64_t mask[2] = {bits, 0};
    Muls(f[1024], f, 3.0f, mask, 3, {1, 1, 8, 0});
  });
  int bad = 0;
  for (size_t r = 0; r < 3; ++r) {
    for (size_t i = 0; i < 64; ++i) {
      const size_t d = 4096 + r * 256 + i * 4;
      const float want = ((bits >> i) & 1) ? At<float>(before, i * 4) * 3.0f : At<float>(before, d);
      if (!ascendc_test::SameFloat(At<float>(io, d), want)) ++bad;
    }
  }
  CHECK_EQ(bad, 0);
}

TWIN_TEST(counter_mode_with_mask_register) {
  // SetMaskCount + SetVectorMask(130): 130 half elements, repeatTime ignored, then back to normal.
  std::vector<uint8_t> io(2048);
  for (size_t k = 0; k < 1024; ++k) Put(&io, 2 * k, H(static_cast<double>(k)));
  const std::vector<uint8_t> before = io;
  WithUb(&io, [](LocalTensor<uint8_t>& ub) {
    LocalTensor<half> h = ub.ReinterpretCast<half>();
    SetMaskCount();
    SetVectorMask<half, MaskMode::COUNTER>(130);
    Adds<half, false>(h[512], h, half(1.0f), MASK_PLACEHOLDER, 1, {1, 1, 8, 8});
    SetMaskNorm();
    ResetMask();
  });
  int bad = 0;
  for (size_t k = 0; k < 512; ++k) {
    const uint16_t want = k < 130 ? RefHalf(static_cast<double>(k) + 1.0) : At<uint16_t>(before, 1024 + 2 * k);
    if (At<uint16_t>(io, 1024 + 2 * k) != want) ++bad;
  }
  CHECK_EQ(bad, 0);
}

TWIN_TEST(ascendc_utils_set_mask_takes_the_first_len_lanes) {
  // AscendCUtils::SetMask<T>(len) then Adds with the mask register: lanes [0, len) of one repeat change, the rest
  // keep what was there; a whole repeat of T (or len >= 128) is every lane; isSetMask = false leaves the register.
  struct Case { int32_t len; bool half_type; bool set; size_t lanes; };
  const Case cases[] = {{5, false, true, 5}, {64, false, true, 64}, {100, true, true, 100}, {64, true, true, 64},
                        {128, true, true, 128}, {200, true, true, 128}, {70, true, true, 70}, {0, false, true, 0},
                        {5, false, false, 64}};
  for (const Case& c : cases) {
    std::vector<uint8_t> io(1024);
    for (size_t k = 0; k < 256; ++k) {
      if (c.half_type) Put(&io, 2 * k, H(static_cast<double>(k % 200)));
      else Put(&io, 4 * k, static_cast<float>(k));
    }
    const std::vector<uint8_t> before = io;
    WithUb(&io, [&c](LocalTensor<uint8_t>& ub) {
      ResetMask();
      if (c.half_type) {
        LocalTensor<half> h = ub.ReinterpretCast<half>();
        if (c.set) AscendCUtils::SetMask<half>(c.len); else AscendCUtils::SetMask<half, false>(c.len);
        Adds<half, false>(h[256], h, half(1.0f), MASK_PLACEHOLDER, 1, {1, 1, 8, 8});
      } else {
        LocalTensor<float> f = ub.ReinterpretCast<float>();
        if (c.set) AscendCUtils::SetMask<float>(c.len); else AscendCUtils::SetMask<float, false>(c.len);
        Adds<float, false>(f[128], f, 1.0f, MASK_PLACEHOLDER, 1, {1, 1, 8, 8});
      }
      ResetMask();
    });
    int bad = 0;
    const size_t per = c.half_type ? 128 : 64;
    for (size_t i = 0; i < per; ++i) {
      if (c.half_type) {
        const uint16_t want = i < c.lanes ? RefHalf(static_cast<double>(i % 200) + 1.0) : At<uint16_t>(before, 512 + 2 * i);
        if (At<uint16_t>(io, 512 + 2 * i) != want) ++bad;
      } else {
        const float want = i < c.lanes ? static_cast<float>(i) + 1.0f : At<float>(before, 512 + 4 * i);
        if (At<float>(io, 512 + 4 * i) != want) ++bad;
      }
    }
    CHECK_EQ(bad, 0);
  }
}

TWIN_TEST(tbuf_queue_interface_is_the_whole_buffer) {
  // TBuf::AllocTensor/DeQue hand out the buffer from its start, as Get does; EnQue/FreeTensor keep the data.
  twin_test::Run run;
  RunAiv(&run, "tbuf_queue", [] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 256);
    LocalTensor<float> a = buf.AllocTensor<float>();
    CHECK_EQ(a.GetSize(), 64u);
    Duplicate(a, 3.0f, 64);
    buf.EnQue(a);
    LocalTensor<float> b = buf.DeQue<float>();
    CHECK(b.GetPhyAddr() == a.GetPhyAddr() && b.GetValue(5) == 3.0f);
    buf.FreeTensor(b);
    LocalTensor<float> c = buf.Get<float>();
    CHECK(c.GetPhyAddr() == a.GetPhyAddr() && c.GetValue(63) == 3.0f);
  });
  CHECK_OK(run);
}

TWIN_TEST(binary_repeat_form_binds_to_the_device_function_pointer_type) {
  // A kernel passes &Sub<float> as `void (*)(..., uint64_t, const uint8_t, const BinaryRepeatParams&)`; the call
  // through it computes as the direct call would: 64 lanes, 2 repeats, against plain float arithmetic.
  using Op = void(const LocalTensor<float>&, const LocalTensor<float>&, const LocalTensor<float>&, uint64_t,
                  const uint8_t, const BinaryRepeatParams&);
  Op* const ops[] = {&Sub<float>, &Div<float>, &Add<float>};
  for (size_t o = 0; o < 3; ++o) {
    std::vector<uint8_t> io(2048);
    for (size_t k = 0; k < 128; ++k) {
      Put(&io, 4 * k, static_cast<float>(k) + 2.0f);
      Put(&io, 512 + 4 * k, 0.5f + 0.25f * static_cast<float>(k));
    }
    WithUb(&io, [&](LocalTensor<uint8_t>& ub) {
      LocalTensor<float> f = ub.ReinterpretCast<float>();
      ops[o](f[256], f, f[128], 64, 2, {1, 1, 1, 8, 8, 8});
    });
    int bad = 0;
    for (size_t k = 0; k < 128; ++k) {
      const float a = static_cast<float>(k) + 2.0f, b = 0.5f + 0.25f * static_cast<float>(k);
      const float ref = o == 0 ? a - b : o == 1 ? a / b : a + b;
      if (At<float>(io, 1024 + 4 * k) != ref) ++bad;
    }
    CHECK_EQ(bad, 0);
  }
}

TWIN_TEST(logic_and_shift_count_forms) {
  std::vector<uint8_t> io(4096);
  for (size_t k = 0; k < 64; ++k) {
    Put<uint16_t>(&io, 2 * k, static_cast<uint16_t>(0x1234u * (k + 1)));
    Put<uint16_t>(&io, 256 + 2 * k, static_cast<uint16_t>(0xf0f0u ^ (k * 77)));
    Put<int32_t>(&io, 512 + 4 * k, static_cast<int32_t>(k * 100003) - 3000000);
  }
  const std::vector<uint8_t> b = io;
  WithUb(&io, [](LocalTensor<uint8_t>& ub) {
    LocalTensor<uint16_t> u = ub.ReinterpretCast<uint16_t>();
    LocalTensor<int32_t> i = ub.ReinterpretCast<int32_t>();
    And(u[512], u, u[128], 64);
    Or(u[640], u, u[128], 64);
    Not(u[768], u, 64);
    ShiftLeft(u[896], u, static_cast<uint16_t>(3), 64);
    ShiftRight(i[512], i[128], 5, 64);
  });
  int bad = 0;
  for (size_t k = 0; k < 64; ++k) {
    const uint16_t x = At<uint16_t>(b, 2 * k), y = At<uint16_t>(b, 256 + 2 * k);
    bad += At<uint16_t>(io, 1024 + 2 * k) != static_cast<uint16_t>(x & y);
    bad += At<uint16_t>(io, 1280 + 2 * k) != static_cast<uint16_t>(x | y);
    bad += At<uint16_t>(io, 1536 + 2 * k) != static_cast<uint16_t>(~x);
    bad += At<uint16_t>(io, 1792 + 2 * k) != static_cast<uint16_t>(x << 3);
    const int32_t v = At<int32_t>(b, 512 + 4 * k);
    const int32_t want = v >= 0 ? v / 32 : -((-v + 31) / 32);  // floor division: an arithmetic shift
    bad += At<int32_t>(io, 2048 + 4 * k) != want;
  }
  CHECK_EQ(bad, 0);
}

TWIN_TEST(axpy_float_half_and_cast_by_repeat) {
  std::vector<uint8_t> io(4096);
  for (size_t k = 0; k < 64; ++k) {
    Put(&io, 2 * k, H(0.3 * static_cast<double>(k) - 5.0));        // half src at 0
    Put(&io, 1024 + 4 * k, static_cast<float>(k) * 0.1f);           // float dst at 1024
  }
  const std::vector<uint8_t> b = io;
  WithUb(&io, [](LocalTensor<uint8_t>& ub) {
    Axpy<float, half>(ub.ReinterpretCast<float>()[256], ub.ReinterpretCast<half>(), half(1.5f), 64);
    // half -> float by repeat: 64 lanes; the half source advances 4 blocks a repeat.
    Cast(ub.ReinterpretCast<float>()[512], ub.ReinterpretCast<half>(), RoundMode::CAST_NONE, 32, 2, {1, 1, 8, 4});
  });
  int bad = 0;
  for (size_t k = 0; k < 64; ++k) {
    const double x = At<half>(b, 2 * k).ToDouble();
    const float want = static_cast<float>(x * 1.5 + static_cast<double>(At<float>(b, 1024 + 4 * k)));
    bad += !ascendc_test::SameFloat(At<float>(io, 1024 + 4 * k), want);
  }
  for (size_t r = 0; r < 2; ++r) {
    for (size_t i = 0; i < 32; ++i) {
      const float want = static_cast<float>(At<half>(b, r * 128 + 2 * i).ToDouble());
      bad += !ascendc_test::SameFloat(At<float>(io, 2048 + r * 256 + 4 * i), want);
    }
  }
  CHECK_EQ(bad, 0);
}

TWIN_TEST(compare_and_select_by_repeat) {
  // Compare LT over 2 repeats of half into bits, then Select mode 2 by those bits; CompareScalar count form.
  std::vector<uint8_t> io(4096);
  for (size_t k = 0; k < 256; ++k) {
    Put(&io, 2 * k, H(std::sin(static_cast<double>(k))));
    Put(&io, 512 + 2 * k, H(std::cos(static_cast<double>(k))));
  }
  const std::vector<uint8_t> b = io;
  WithUb(&io, [](LocalTensor<uint8_t>& ub) {
    LocalTensor<half> h = ub.ReinterpretCast<half>();
    Compare(ub[1024], h, h[256], CMPMODE::LT, 128, 2, {1, 1, 1, 8, 8, 8});
    Select(h[768], ub[1024], h, h[256], SELMODE::VSEL_TENSOR_TENSOR_MODE, 128, 2, {1, 1, 1, 8, 8, 8});
    CompareScalar(ub[2048], h, half(0.0f), CMPMODE::GT, 256);
  });
  int bad = 0;
  for (size_t k = 0; k < 256; ++k) {
    const double x = At<half>(b, 2 * k).ToDouble(), y = At<half>(b, 512 + 2 * k).ToDouble();
    const bool lt = x < y;
    bad += ((io[1024 + k / 8] >> (k % 8)) & 1) != (lt ? 1 : 0);
    bad += At<uint16_t>(io, 1536 + 2 * k) != (lt ? At<uint16_t>(b, 2 * k) : At<uint16_t>(b, 512 + 2 * k));
    bad += ((io[2048 + k / 8] >> (k % 8)) & 1) != (x > 0 ? 1 : 0);
  }
  CHECK_EQ(bad, 0);
}

TWIN_TEST(gather_and_gather_mask) {
  std::vector<uint8_t> io(4096);
  for (size_t k = 0; k < 128; ++k) Put<float>(&io, 4 * k, static_cast<float>(k) + 0.5f);
  for (size_t k = 0; k < 64; ++k) Put<uint32_t>(&io, 512 + 4 * k, static_cast<uint32_t>(((k * 37) % 128) * 4));
  // A pattern of 64 bits: keep element k when k % 3 == 0.
  uint64_t pat = 0;
  for (size_t k = 0; k < 64; k += 3) pat |= uint64_t{1} << k;
  Put<uint64_t>(&io, 1024, pat);
  const std::vector<uint8_t> b = io;
  uint64_t kept_tensor = 0, kept_builtin = 0, kept_register = 0;
  WithUb(&io, [&](LocalTensor<uint8_t>& ub) {
    LocalTensor<float> f = ub.ReinterpretCast<float>();
    Gather(f[512], f, ub.ReinterpretCast<uint32_t>()[128], 0, 64);
    GatherMask(f[640], f, ub.ReinterpretCast<uint32_t>()[256], true, 64, {1, 1, 0, 0}, kept_tensor);
    GatherMask(f[768], f, 2, false, 0, {1, 2, 8, 0}, kept_builtin);  // odd lanes of 2 repeats
    kept_register = static_cast<uint64_t>(AscendCUtils::GetRsvdCnt());
  });
  int bad = 0;
  for (size_t k = 0; k < 64; ++k) {
    bad += At<float>(io, 2048 + 4 * k) != static_cast<float>((k * 37) % 128) + 0.5f;
  }
  CHECK_EQ(kept_tensor, 22u);
  for (size_t n = 0; n < 22; ++n) bad += At<float>(io, 2560 + 4 * n) != static_cast<float>(3 * n) + 0.5f;
  CHECK_EQ(kept_builtin, 64u);
  CHECK_EQ(kept_register, 64u);
  for (size_t n = 0; n < 64; ++n) bad += At<float>(io, 3072 + 4 * n) != static_cast<float>(2 * n + 1) + 0.5f;
  CHECK_EQ(bad, 0);
}

TWIN_TEST(reductions_by_repeat) {
  std::vector<uint8_t> io(4096);
  for (size_t k = 0; k < 128; ++k) Put<float>(&io, 4 * k, static_cast<float>((k * 53) % 101) - 50.0f);
  const std::vector<uint8_t> b = io;
  WithUb(&io, [](LocalTensor<uint8_t>& ub) {
    LocalTensor<float> f = ub.ReinterpretCast<float>();
    WholeReduceSum(f[256], f, 64, 2, 1, 1, 8);
    WholeReduceMax(f[264], f, 48, 2, 1, 1, 8);  // value, index pairs; lanes 0..47
    PairReduceSum(f[272], f, 64, 1, 1, 1, 8);
    BlockReduceMin(f[320], f, 64, 2, 1, 1, 8);
  });
  int bad = 0;
  for (size_t r = 0; r < 2; ++r) {
    // The hardware's pairwise tree in float: all values are small integers, so any order is exact.
    double sum = 0;
    for (size_t i = 0; i < 64; ++i) sum += At<float>(b, r * 256 + 4 * i);
    bad += At<float>(io, 1024 + 4 * r) != static_cast<float>(sum);
    size_t best = 0;
    for (size_t i = 1; i < 48; ++i) {
      if (At<float>(b, r * 256 + 4 * i) > At<float>(b, r * 256 + 4 * best)) best = i;
    }
    bad += At<float>(io, 1056 + 8 * r) != At<float>(b, r * 256 + 4 * best);
    bad += At<uint32_t>(io, 1056 + 8 * r + 4) != best;
    for (size_t j = 0; j < 8; ++j) {
      float m = At<float>(b, r * 256 + 32 * j);
      for (size_t i = 1; i < 8; ++i) m = std::min(m, At<float>(b, r * 256 + 32 * j + 4 * i));
      bad += At<float>(io, 1280 + r * 32 + 4 * j) != m;
    }
  }
  for (size_t j = 0; j < 32; ++j) bad += At<float>(io, 1088 + 4 * j) != At<float>(b, 8 * j) + At<float>(b, 8 * j + 4);
  CHECK_EQ(bad, 0);
}

TWIN_TEST(brcb_duplicate_and_progressions) {
  std::vector<uint8_t> io(4096);
  for (size_t k = 0; k < 16; ++k) Put<float>(&io, 4 * k, static_cast<float>(k) * 2.0f);
  const std::vector<uint8_t> b = io;
  WithUb(&io, [](LocalTensor<uint8_t>& ub) {
    LocalTensor<float> f = ub.ReinterpretCast<float>();
    Brcb(f[64], f, 2, {1, 8});
    Duplicate(f[256], 9.0f, 8, 2, 2, 16);  // 8 lanes a repeat, block stride 2
    ArithProgression(f[512], 0.5f, 0.25f, 40);
    ArithProgression(ub.ReinterpretCast<int32_t>()[576], -4, 3, 24);
  });
  int bad = 0;
  for (size_t j = 0; j < 16; ++j) {
    for (size_t i = 0; i < 8; ++i) bad += At<float>(io, 256 + 32 * j + 4 * i) != static_cast<float>(j) * 2.0f;
  }
  for (size_t r = 0; r < 2; ++r) {
    for (size_t i = 0; i < 8; ++i) bad += At<float>(io, 1024 + r * 512 + 4 * i) != 9.0f;
    bad += At<float>(io, 1024 + r * 512 + 32) != At<float>(b, 1024 + r * 512 + 32);  // a gap block, untouched
  }
  for (size_t k = 0; k < 40; ++k) bad += At<float>(io, 2048 + 4 * k) != 0.5f + 0.25f * static_cast<float>(k);
  for (size_t k = 0; k < 24; ++k) bad += At<int32_t>(io, 2304 + 4 * k) != -4 + 3 * static_cast<int32_t>(k);
  CHECK_EQ(bad, 0);
}

TWIN_TEST(atomic_add_accumulates_every_block) {
  // Four blocks add their block index + 1 into the same 64 floats; then SetAtomicNone copies plainly.
  std::vector<float> out(64, 10.0f);
  std::vector<float> plain(64, 0.0f);
  twin_test::Run run;
  RunAiv(
      &run, "atomic",
      [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> buf;
        pipe.InitBuffer(buf, 256);
        LocalTensor<float> t = buf.Get<float>();
        Duplicate(t, static_cast<float>(GetBlockIdx() + 1), 64);
        GlobalTensor<float> g, p;
        g.SetGlobalBuffer(out.data(), out.size());
        p.SetGlobalBuffer(plain.data(), plain.size());
        SetAtomicAdd<float>();
        DataCopy(g, t, 64);
        SetAtomicNone();
        if (GetBlockIdx() == 2) DataCopy(p, t, 64);
      },
      4);
  CHECK_OK(run);
  int bad = 0;
  for (size_t i = 0; i < 64; ++i) bad += out[i] != 20.0f || plain[i] != 3.0f;
  CHECK_EQ(bad, 0);
}

TWIN_TEST(high_level_math_rounds_once_from_the_exact_value) {
  std::vector<uint8_t> io(8192);
  const double xs[8] = {-2.5, -1.5, -0.4, 0.0, 0.5, 1.5, 2.75, 7.0};
  for (size_t k = 0; k < 64; ++k) Put<float>(&io, 4 * k, static_cast<float>(xs[k % 8] + 0.125 * static_cast<double>(k / 8)));
  const std::vector<uint8_t> b = io;
  WithUb(&io, [](LocalTensor<uint8_t>& ub) {
    LocalTensor<float> f = ub.ReinterpretCast<float>();
    Floor(f[64], f, 64);
    Ceil(f[128], f, 64);
    Trunc(f[192], f, 64);
    Round(f[256], f, 64);
    Sign(f[320], f, 64);
    Tan(f[384], f, 64);
    Power(f[448], f, 2.0f, 64);
    Log(f[512], f[448], 64);
  });
  int bad = 0;
  for (size_t k = 0; k < 64; ++k) {
    const float x = At<float>(b, 4 * k);
    const double xd = x;
    bad += At<float>(io, 256 + 4 * k) != static_cast<float>(std::floor(xd));
    bad += At<float>(io, 512 + 4 * k) != static_cast<float>(std::ceil(xd));
    bad += At<float>(io, 768 + 4 * k) != static_cast<float>(std::trunc(xd));
    bad += At<float>(io, 1024 + 4 * k) != static_cast<float>(std::round(xd));
    bad += At<float>(io, 1280 + 4 * k) != (x > 0 ? 1.0f : x < 0 ? -1.0f : 0.0f);
    bad += At<float>(io, 1536 + 4 * k) != static_cast<float>(std::tan(xd));
    const float sq = static_cast<float>(xd * xd);
    bad += At<float>(io, 1792 + 4 * k) != sq;
    bad += !ascendc_test::SameFloat(At<float>(io, 2048 + 4 * k), static_cast<float>(std::log(static_cast<double>(sq))));
  }
  CHECK_EQ(bad, 0);
}

TWIN_TEST(inverse_trig_erfc_sigmoid_against_known_values) {
  // Inputs 0.5, 1, 2, 0 (and 64 lanes of them); expected values written out (pi/6, pi/3, erfc(1), ...), rounded
  // once to float; out-of-domain inputs give NaN.
  std::vector<uint8_t> io(8192);
  const float xs[4] = {0.5f, 1.0f, 2.0f, 0.0f};
  for (size_t k = 0; k < 64; ++k) Put<float>(&io, 4 * k, xs[k % 4]);
  for (size_t k = 0; k < 128; ++k) Put(&io, 7168 + 2 * k, H(k % 2 ? 2.0 : -3.0));
  WithUb(&io, [](LocalTensor<uint8_t>& ub) {
    LocalTensor<float> f = ub.ReinterpretCast<float>();
    Asin(f[64], f, 64);
    Acos(f[128], f, 64);
    Erfc(f[192], f, 64);
    Sigmoid(f[256], f, 64);
    Asinh(f[320], f, 64);
    Acosh(f[384], f, 64);
    Atanh(f[448], f, 64);
    LocalTensor<half> h = ub.ReinterpretCast<half>();
    Sigmoid(h[3712], h[3584], 128);
  });
  const double nan = std::nan("");
  const double want[7][4] = {
      {0.52359877559829887, 1.5707963267948966, nan, 0.0},                        // Asin
      {1.0471975511965979, 0.0, nan, 1.5707963267948966},                         // Acos
      {0.47950012218695346, 0.15729920705028513, 0.0046777349810472658, 1.0},    // Erfc
      {0.62245933120185459, 0.73105857863000490, 0.88079707797788231, 0.5},      // Sigmoid
      {0.48121182505960347, 0.88137358701954303, 1.4436354751788103, 0.0},       // Asinh
      {nan, 0.0, 1.3169578969248166, nan},                                        // Acosh
      {0.54930614433405489, std::numeric_limits<double>::infinity(), nan, 0.0},  // Atanh
  };
  int bad = 0;
  for (size_t op = 0; op < 7; ++op) {
    for (size_t k = 0; k < 64; ++k) {
      const float got = At<float>(io, 256 * (op + 1) + 4 * k), w = static_cast<float>(want[op][k % 4]);
      bad += std::isnan(w) ? !std::isnan(got) : got != w;
    }
  }
  for (size_t k = 0; k < 128; ++k) {
    bad += At<uint16_t>(io, 7424 + 2 * k) != RefHalf(k % 2 ? 0.88079707797788231 : 0.047425873177566781);
  }
  CHECK_EQ(bad, 0);
}

TWIN_TEST(broadcast_repeats_dimensions_of_one) {
  std::vector<uint8_t> io(4096);
  for (size_t k = 0; k < 8; ++k) Put<float>(&io, 4 * k, static_cast<float>(k) + 0.5f);
  const std::vector<uint8_t> b = io;
  WithUb(&io, [](LocalTensor<uint8_t>& ub) {
    LocalTensor<float> f = ub.ReinterpretCast<float>();
    const uint32_t dst_rows[2] = {8, 16}, src_col[2] = {8, 1};
    BroadCast<float, 2, 1>(f[64], f, dst_rows, src_col);  // [8, 1] -> [8, 16]
    const uint32_t dst_cols[2] = {4, 8}, src_row[2] = {1, 8};
    Broadcast<float, 2, 0>(f[256], f, dst_cols, src_row);  // [1, 8] -> [4, 8]
  });
  int bad = 0;
  for (size_t i = 0; i < 8; ++i) {
    for (size_t j = 0; j < 16; ++j) bad += At<float>(io, 256 + 4 * (i * 16 + j)) != At<float>(b, 4 * i);
  }
  for (size_t i = 0; i < 4; ++i) {
    for (size_t j = 0; j < 8; ++j) bad += At<float>(io, 1024 + 4 * (i * 8 + j)) != At<float>(b, 4 * j);
  }
  CHECK_EQ(bad, 0);
}

TWIN_TEST(concat_sort_extract_order_descending_and_stable) {
  // 64 float scores with ties; index i; full sort and per-32 sort against std::stable_sort of a plain array.
  std::vector<uint8_t> io(8192);
  std::vector<float> scores(64);
  for (size_t k = 0; k < 64; ++k) {
    scores[k] = static_cast<float>((k * 37) % 11) - 5.0f;
    Put<float>(&io, 4 * k, scores[k]);
    Put<uint32_t>(&io, 256 + 4 * k, static_cast<uint32_t>(k));
  }
  WithUb(&io, [](LocalTensor<uint8_t>& ub) {
    LocalTensor<float> f = ub.ReinterpretCast<float>();
    LocalTensor<float> concat = f[128], tmp = f[1792];
    Concat(concat, f, tmp, 4);
    Sort<float, true>(f[256], concat, ub.ReinterpretCast<uint32_t>()[64], tmp, 2);   // pairs at byte 1024
    Sort<float, false>(f[512], concat, ub.ReinterpretCast<uint32_t>()[64], tmp, 2);  // pairs at byte 2048
    Extract(f[768], ub.ReinterpretCast<uint32_t>()[832], f[256], 2);                 // values 3072, indices 3328
  });
  std::vector<size_t> order(64);
  for (size_t k = 0; k < 64; ++k) order[k] = k;
  auto desc = [&](size_t a, size_t b) { return scores[a] > scores[b]; };
  std::vector<size_t> full = order, part = order;
  std::stable_sort(full.begin(), full.end(), desc);
  std::stable_sort(part.begin(), part.begin() + 32, desc);
  std::stable_sort(part.begin() + 32, part.end(), desc);
  int bad = 0;
  for (size_t i = 0; i < 64; ++i) {
    bad += At<float>(io, 512 + 4 * i) != scores[i];  // Concat copied the scores
    bad += At<float>(io, 1024 + 8 * i) != scores[full[i]] || At<uint32_t>(io, 1024 + 8 * i + 4) != full[i];
    bad += At<float>(io, 2048 + 8 * i) != scores[part[i]] || At<uint32_t>(io, 2048 + 8 * i + 4) != part[i];
    bad += At<float>(io, 3072 + 4 * i) != scores[full[i]] || At<uint32_t>(io, 3328 + 4 * i) != full[i];
  }
  CHECK_EQ(bad, 0);
}

TWIN_TEST(axis_reductions_of_a_2d_tensor) {
  // [3, 5] floats stored with 32-byte aligned rows (stride 8): sums of rows (AR) and columns (RA), max of rows.
  std::vector<uint8_t> io(4096);
  for (size_t i = 0; i < 3; ++i) {
    for (size_t j = 0; j < 5; ++j) Put<float>(&io, 4 * (i * 8 + j), static_cast<float>(i * 10 + j) - 7.0f);
  }
  const std::vector<uint8_t> b = io;
  WithUb(&io, [](LocalTensor<uint8_t>& ub) {
    LocalTensor<float> f = ub.ReinterpretCast<float>();
    const uint32_t shape[2] = {3, 5};
    ReduceSum<float, Pattern::Reduce::AR>(f[64], f, shape, true);
    ReduceSum<float, Pattern::Reduce::RA, true>(f[128], f, ub[2048], shape, true);
    ReduceMax<float, Pattern::Reduce::AR>(f[192], f, shape, true);
  });
  int bad = 0;
  for (size_t i = 0; i < 3; ++i) {
    float sum = 0, mx = At<float>(b, 4 * i * 8);
    for (size_t j = 0; j < 5; ++j) {
      sum += At<float>(b, 4 * (i * 8 + j));
      mx = std::max(mx, At<float>(b, 4 * (i * 8 + j)));
    }
    bad += At<float>(io, 256 + 4 * i) != sum;  // small integers: exact in any order
    bad += At<float>(io, 768 + 4 * i) != mx;
  }
  for (size_t j = 0; j < 5; ++j) {
    float sum = 0;
    for (size_t i = 0; i < 3; ++i) sum += At<float>(b, 4 * (i * 8 + j));
    bad += At<float>(io, 512 + 4 * j) != sum;
  }
  CHECK_EQ(bad, 0);
}

TWIN_TEST(trans_data_to_5hd_transposes_16_by_16_blocks) {
  // Two repeats: src blocks of repeat r at 512 r bytes, dst blocks at 2048 + 512 r (dstRepStride 16).
  std::vector<uint8_t> io(4096);
  for (size_t k = 0; k < 512; ++k) Put<uint16_t>(&io, 2 * k, static_cast<uint16_t>(k * 7 + 1));
  const std::vector<uint8_t> b = io;
  WithUb(&io, [](LocalTensor<uint8_t>& ub) {
    LocalTensor<uint16_t> u = ub.ReinterpretCast<uint16_t>();
    LocalTensor<uint16_t> dst[16], src[16];
    for (int i = 0; i < 16; ++i) {
      src[i] = u[16 * i];
      dst[i] = u[1024 + 16 * i];
    }
    TransDataTo5HD(dst, src, TransDataTo5HDParams(false, false, 2, 16, 16));
  });
  int bad = 0;
  for (size_t r = 0; r < 2; ++r) {
    for (size_t i = 0; i < 16; ++i) {
      for (size_t j = 0; j < 16; ++j) {
        bad += At<uint16_t>(io, 2048 + r * 512 + j * 32 + i * 2) != At<uint16_t>(b, r * 512 + i * 32 + j * 2);
      }
    }
  }
  CHECK_EQ(bad, 0);
}

TWIN_TEST(sort32_and_mrgsort_merge_descending) {
  // 4 repeats of Sort32 over 128 floats, then one MrgSort of the 4 sorted runs: all 128 descending, stable.
  std::vector<uint8_t> io(8192);
  std::vector<float> scores(128);
  for (size_t k = 0; k < 128; ++k) {
    scores[k] = static_cast<float>((k * 53) % 29) * 0.5f;
    Put<float>(&io, 4 * k, scores[k]);
    Put<uint32_t>(&io, 512 + 4 * k, static_cast<uint32_t>(k));
  }
  WithUb(&io, [](LocalTensor<uint8_t>& ub) {
    LocalTensor<float> f = ub.ReinterpretCast<float>();
    Sort32(f[256], f, ub.ReinterpretCast<uint32_t>()[128], 4);  // runs at byte 1024, 256 bytes each
    const uint16_t lens[4] = {32, 32, 32, 32};
    MrgSort(f[1024], MrgSortSrcList<float>(f[256], f[320], f[384], f[448]), MrgSort4Info(lens, false, 15, 1));
  });
  std::vector<size_t> order(128);
  for (size_t k = 0; k < 128; ++k) order[k] = k;
  auto desc = [&](size_t a, size_t b) { return scores[a] > scores[b]; };
  for (size_t g = 0; g < 4; ++g) std::stable_sort(order.begin() + 32 * g, order.begin() + 32 * (g + 1), desc);
  std::stable_sort(order.begin(), order.end(), desc);  // stable over the runs: lower run first on ties
  int bad = 0;
  for (size_t i = 0; i < 128; ++i) {
    bad += At<float>(io, 4096 + 8 * i) != scores[order[i]] || At<uint32_t>(io, 4096 + 8 * i + 4) != order[i];
  }
  CHECK_EQ(bad, 0);
}

TWIN_TEST(cast_int32_to_half_scales_by_deq_scale) {
  std::vector<uint8_t> io(2048);
  for (size_t k = 0; k < 64; ++k) Put<int32_t>(&io, 4 * k, static_cast<int32_t>(k * 1001) - 20000);
  const std::vector<uint8_t> b = io;
  WithUb(&io, [](LocalTensor<uint8_t>& ub) {
    SetDeqScale(half(0.375f));
    Cast(ub.ReinterpretCast<half>()[512], ub.ReinterpretCast<int32_t>(), RoundMode::CAST_NONE, 64);
    Cast(ub.ReinterpretCast<half>()[576], ub.ReinterpretCast<int32_t>(), RoundMode::CAST_FLOOR, 64, 1, {1, 1, 4, 8});
  });
  int bad = 0;
  for (size_t k = 0; k < 64; ++k) {
    const uint16_t want = RefHalf(static_cast<double>(At<int32_t>(b, 4 * k)) * 0.375);
    bad += At<uint16_t>(io, 1024 + 2 * k) != want;
    bad += At<uint16_t>(io, 1152 + 2 * k) != want;
  }
  CHECK_EQ(bad, 0);
}

TWIN_TEST(cast_int32_to_half_without_deq_scale_is_named) {
  const std::string e = Violation("no_deq", [](LocalTensor<uint8_t>& ub) {
    Cast(ub.ReinterpretCast<half>()[512], ub.ReinterpretCast<int32_t>(), RoundMode::CAST_RINT, 64);
  });
  CHECK_CONTAINS(e, "Cast<half, int32_t>(CAST_RINT, count 64)");
  CHECK_CONTAINS(e, "DEQSCALE register, which was never set");
}

TWIN_TEST(whole_tensor_expressions_and_init_output) {
  std::vector<uint8_t> io(4096);
  for (size_t k = 0; k < 64; ++k) {
    Put<float>(&io, 4 * k, static_cast<float>(k % 7) - 3.0f);
    Put<float>(&io, 256 + 4 * k, static_cast<float>(k % 5) - 2.0f);
  }
  const std::vector<uint8_t> b = io;
  std::vector<float> gm(40, 9.0f);
  WithUb(&io, [&gm](LocalTensor<uint8_t>& ub) {
    LocalTensor<float> f = ub.ReinterpretCast<float>();
    LocalTensor<float> x = f, y = f[64], sum = f[128], prod = f[192];
    sum.SetSize(64);
    prod.SetSize(64);
    sum = x + y;
    prod = x * y;
    LocalTensor<uint8_t> ge = ub[1024];
    x.SetSize(64);
    ge = x >= y;
    GlobalTensor<float> g;
    g.SetGlobalBuffer(gm.data(), gm.size());
    InitOutput<float>(g[8], 24, 0.5f);
  });
  int bad = 0;
  for (size_t k = 0; k < 64; ++k) {
    const float x = At<float>(b, 4 * k), y = At<float>(b, 256 + 4 * k);
    bad += At<float>(io, 512 + 4 * k) != x + y;
    bad += At<float>(io, 768 + 4 * k) != x * y;
    bad += ((io[1024 + k / 8] >> (k % 8)) & 1) != (x >= y ? 1 : 0);
  }
  for (size_t i = 0; i < gm.size(); ++i) bad += gm[i] != (i >= 8 && i < 32 ? 0.5f : 9.0f);
  CHECK_EQ(bad, 0);
}

// A half table in a constant expression, as CANN kernels declare them.
constexpr half kTable[4] = {0, 1, 3, 65504};
static_assert(kTable[1].bits_ == 0x3c00 && kTable[2].bits_ == 0x4200 && kTable[3].bits_ == 0x7bff,
              "half converts integers in constant expressions");
static_assert(half(0.1).bits_ == 0x2e66 && bfloat16_t(1.5f).bits_ == 0x3fc0, "and floating values, to nearest even");

TWIN_TEST(scalar_casts_queue_handles_and_bool_tensors) {
  CHECK_EQ(AscendC::Cast(bfloat16_t(2.5f)), 2.5f);
  CHECK_EQ(AscendC::Cast(1.00390625f).bits_, 0x3f80);  // a tie: to even
  CHECK_EQ((AscendC::Cast<float, int32_t, RoundMode::CAST_RINT>(2.5f)), 2);
  CHECK_EQ((AscendC::Cast<float, int32_t, RoundMode::CAST_RINT>(-3.5f)), -4);
  CHECK_EQ((AscendC::Cast<float, int32_t, RoundMode::CAST_FLOOR>(-0.25f)), -1);
  CHECK_EQ((AscendC::Cast<float, int32_t, RoundMode::CAST_CEIL>(0.25f)), 1);
  CHECK_EQ((AscendC::Cast<float, int32_t, RoundMode::CAST_ROUND>(-2.5f)), -3);
  CHECK_EQ((AscendC::Cast<float, int32_t, RoundMode::CAST_TRUNC>(1e10f)), INT32_MAX);
  // 1.5 + 1.5 ulp of half: truncated to 1.5 + 1 ulp, rounded to even 1.5 + 2 ulp.
  CHECK_EQ((AscendC::Cast<float, half, RoundMode::CAST_TRUNC>(1.0009765625f * 1.5f)).bits_, 0x3e01);
  CHECK_EQ((AscendC::Cast<float, half, RoundMode::CAST_RINT>(1.0009765625f * 1.5f)).bits_, 0x3e02);
  // The documented examples of the scalar bit counts.
  CHECK_EQ(CountLeadingZero(0x0100000000000020ULL), 7);
  CHECK_EQ(CountLeadingZero(0), 64);
  CHECK_EQ(CountBitsCntSameAsSignBit(0x0100000000000020ULL), 6);
  CHECK_EQ(CountBitsCntSameAsSignBit(0xff00000000000000ULL), 7);
  CHECK_EQ(GetSFFValue<1>(0x1000000000000100ULL), 8);
  CHECK_EQ(GetSFFValue<0>(~0ULL), -1);
  CHECK_EQ(GetBitCount<1>(0xf0f0ULL), 8);
  CHECK_EQ(ScalarGetCountOfValue<0>(0xf0f0ULL), 56);
  std::vector<uint8_t> flags(32, 0);
  for (size_t i = 0; i < flags.size(); i += 3) flags[i] = 1;
  std::vector<uint8_t> back(32, 7);
  twin_test::Run run;
  RunAiv(&run, "handles", [&] {
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> q;
    pipe.InitBuffer(q, 1, 64);
    TQue<QuePosition::VECIN, 1> alias;
    alias = q;  // the same queue
    GlobalTensor<bool> g, o;
    g.SetGlobalBuffer(reinterpret_cast<bool*>(flags.data()), flags.size());
    o.SetGlobalBuffer(reinterpret_cast<bool*>(back.data()), back.size());
    LocalTensor<bool> t = alias.AllocTensor<bool>();
    DataCopy(t, g, 32);
    q.EnQue(t);
    LocalTensor<bool> u = alias.DeQue<bool>();
    DataCopy(o, u, 32);
    q.FreeTensor(u);
  });
  CHECK_OK(run);
  CHECK(back == flags);
}

// ------------------------------------------------------------------ rules

TWIN_TEST(repeat_over_255_is_named) {
  const std::string e = Violation("repeat_300", [](LocalTensor<uint8_t>& ub) {
    LocalTensor<half> h = ub.ReinterpretCast<half>();
    const int repeat = 300;
    Add(h, h, h, 128, repeat, {1, 1, 1, 8, 8, 8});
  });
  CHECK_CONTAINS(e, "Add<half>(mask 128, repeatTime 300");
  CHECK_CONTAINS(e, "repeatTime 300 is outside 0..255");
}

TWIN_TEST(mask_beyond_a_repeat_is_named) {
  const std::string e = Violation("mask_129", [](LocalTensor<uint8_t>& ub) {
    LocalTensor<float> f = ub.ReinterpretCast<float>();
    Exp(f, f, 65, 1, {1, 1, 8, 8});
  });
  CHECK_CONTAINS(e, "Exp<float>(mask 65, repeatTime 1");
  CHECK_CONTAINS(e, "mask 65 is outside 1..64");
}

TWIN_TEST(repeats_past_the_buffer_are_named) {
  const std::string e = Violation("ub_overrun", [](LocalTensor<uint8_t>& ub) {
    LocalTensor<half> h = ub.ReinterpretCast<half>();
    Muls(h, h, half(2.0f), 128, 17, {1, 1, 8, 8});  // 17 x 256 bytes > 4096
  });
  CHECK_CONTAINS(e, "Muls<half>(mask 128, repeatTime 17");
  CHECK_CONTAINS(e, "outside its buffer");
}

TWIN_TEST(misaligned_operand_is_named) {
  const std::string e = Violation("unaligned_rep", [](LocalTensor<uint8_t>& ub) {
    LocalTensor<float> f = ub.ReinterpretCast<float>();
    Add(f, f[3], f, 64, 1, {1, 1, 1, 8, 8, 8});
  });
  CHECK_CONTAINS(e, "src0 starts at UB address 12, not a multiple of 32");
}

TWIN_TEST(atomic_type_mismatch_is_named) {
  static std::vector<half> gm(64);
  const std::string e = Violation("atomic_type", [](LocalTensor<uint8_t>& ub) {
    GlobalTensor<half> g;
    g.SetGlobalBuffer(gm.data(), gm.size());
    SetAtomicAdd<float>();
    DataCopy(g, ub.ReinterpretCast<half>(), 64);
  });
  CHECK_CONTAINS(e, "SetAtomicAdd<float> is set, but the copy moves half");
}

TWIN_TEST(a_queue_in_a_cube_position_is_named_at_init_buffer) {
  const std::string e = Violation("cube_queue", [](LocalTensor<uint8_t>&) {
    TPipe pipe;
    TQue<TPosition::CO2, 1> co2;
    pipe.InitBuffer(co2, 1, 1024);
  });
  CHECK_CONTAINS(e, "TPipe::InitBuffer(que, num 1, len 1024)");
  CHECK_CONTAINS(e, "a TQue in TPosition::CO2, which the CPU twin does not implement");
}

TWIN_TEST(gather_offset_outside_src_is_named) {
  const std::string e = Violation("gather_oob", [](LocalTensor<uint8_t>& ub) {
    LocalTensor<uint32_t> off = ub.ReinterpretCast<uint32_t>();
    off.SetValue(0, 8192u);
    LocalTensor<float> f = ub.ReinterpretCast<float>();
    Gather(f[64], f[512], off, 0, 8);
  });
  CHECK_CONTAINS(e, "Gather<float>(srcBaseAddr 0, count 8): element 0");
  CHECK_CONTAINS(e, "outside its buffer");
}

}  // namespace

int main(int argc, char** argv) { return twin_test::Main(argc, argv); }
