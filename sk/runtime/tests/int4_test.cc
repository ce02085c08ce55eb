// int4b_t tensors on the twin, against references worked out here from the
// documented layout (two 4-bit two's-complement elements a byte, element 2k in
// the low nibble) and the Cast table of Atlas A2/A3 (half -> int4b_t rounds
// with the RoundMode and saturates to [-8, 7]; int4b_t -> half is exact):
// element access and sizes in elements, operator[] offsets, DataCopy and
// DataCopyPad moving count / 2 bytes, and the refusals of odd counts/offsets.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "ascendc_util.h"

using namespace AscendC;
using ascendc_test::HalfValue;
using ascendc_test::RefHalf;
using ascendc_test::RunAiv;

namespace {

// Element i of packed bytes, sign-extended: the reference decoder.
int RefNibble(const std::vector<uint8_t>& b, size_t i) {
  const int n = (b[i / 2] >> (i % 2 == 0 ? 0 : 4)) & 0xf;
  return n >= 8 ? n - 16 : n;
}

// The value a RoundMode gives (values chosen so the modes differ), saturated to [-8, 7].
int RefRound(double v, RoundMode m) {
  double r;
  switch (m) {
    case RoundMode::CAST_FLOOR: r = std::floor(v); break;
    case RoundMode::CAST_CEIL: r = std::ceil(v); break;
    case RoundMode::CAST_ROUND: r = v < 0 ? -std::floor(-v + 0.5) : std::floor(v + 0.5); break;
    case RoundMode::CAST_TRUNC: r = v < 0 ? std::ceil(v) : std::floor(v); break;
    default: {  // nearest, ties to even
      const double f = std::floor(v);
      r = (v - f > 0.5 || (v - f == 0.5 && std::fmod(f, 2.0) != 0)) ? f + 1 : f;
    }
  }
  return r < -8 ? -8 : (r > 7 ? 7 : static_cast<int>(r));
}

TWIN_TEST(global_tensor_elements_pack_two_a_byte_low_nibble_first) {
  std::vector<uint8_t> gm(32, 0);
  twin_test::Run run;
  uint64_t size = 0, rest = 0;
  int back[4] = {};
  RunAiv(&run, "int4_gm", [&] {
    GlobalTensor<int4b_t> g;
    g.SetGlobalBuffer(reinterpret_cast<__gm__ int4b_t*>(gm.data()), 64);
    size = g.GetSize();
    rest = g[10].GetSize();
    for (uint32_t i = 0; i < 64; ++i) g.SetValue(i, static_cast<int32_t>(i % 16) - 8);
    g[10].SetValue(1, int4b_t(7));  // element 11
    back[0] = static_cast<int8_t>(g.GetValue(0));
    back[1] = static_cast<int8_t>(g.GetValue(11));
    back[2] = static_cast<int8_t>(g[2].GetValue(1));
    back[3] = static_cast<int8_t>(g.GetValue(63));
  });
  CHECK_OK(run);
  CHECK_EQ(size, 64u);
  CHECK_EQ(rest, 54u);
  int bad = 0;
  for (size_t i = 0; i < 64; ++i) bad += RefNibble(gm, i) != (i == 11 ? 7 : static_cast<int>(i % 16) - 8);
  CHECK_EQ(bad, 0);
  CHECK_EQ(gm[0], 0x98);  // -8 (0x8) low, -7 (0x9) high
  CHECK_EQ(back[0], -8);
  CHECK_EQ(back[1], 7);
  CHECK_EQ(back[2], -5);
  CHECK_EQ(back[3], 7);
}

TWIN_TEST(data_copy_moves_count_halves_of_bytes_both_ways) {
  std::vector<uint8_t> src(64), dst(64, 0xee);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<uint8_t>(i * 37 + 5);
  twin_test::Run run;
  uint32_t local_size = 0;
  RunAiv(&run, "int4_copy", [&] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 64);
    GlobalTensor<int4b_t> gs, gd;
    gs.SetGlobalBuffer(reinterpret_cast<__gm__ int4b_t*>(src.data()), 128);
    gd.SetGlobalBuffer(reinterpret_cast<__gm__ int4b_t*>(dst.data()), 128);
    LocalTensor<int4b_t> ub = buf.Get<int4b_t>(128);
    local_size = ub.GetSize();
    DataCopy(ub, gs, 128);                 // 64 bytes in
    DataCopy(gd, ub[64], 64);              // the second 32 bytes out first
    DataCopyExtParams p{1, 32, 0, 0, 0};   // blockLen in bytes: elements 0..63
    DataCopyPad(gd[64], ub, p);
  });
  CHECK_OK(run);
  CHECK_EQ(local_size, 128u);
  int bad = 0;
  for (size_t i = 0; i < 32; ++i) bad += dst[i] != src[32 + i] || dst[32 + i] != src[i];
  CHECK_EQ(bad, 0);
}

TWIN_TEST(cast_int4_to_half_is_exact) {
  std::vector<uint8_t> io(256, 0);
  for (size_t i = 0; i < 32; ++i) io[i] = static_cast<uint8_t>(i * 11 + 3);
  twin_test::Run run;
  RunAiv(&run, "int4_to_half", [&] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 256);
    GlobalTensor<uint8_t> g;
    g.SetGlobalBuffer(io.data(), io.size());
    LocalTensor<uint8_t> ub = buf.Get<uint8_t>();
    DataCopy(ub, g, 256);
    Cast(ub[128].ReinterpretCast<half>(), ub.ReinterpretCast<int4b_t>(), RoundMode::CAST_NONE, 64);
    DataCopy(g, ub, 256);
  });
  CHECK_OK(run);
  int bad = 0;
  for (size_t i = 0; i < 64; ++i) {
    uint16_t h;
    std::memcpy(&h, io.data() + 128 + 2 * i, 2);
    bad += HalfValue(h) != static_cast<double>(RefNibble(io, i));
  }
  CHECK_EQ(bad, 0);
}

TWIN_TEST(cast_half_to_int4_rounds_with_the_mode_and_saturates) {
  const double vals[16] = {-9.5, -8.5, -7.5, -2.5, -1.5, -0.5, 0.25, 0.5, 1.5, 2.5, 3.7, 6.5, 7.4, 7.5, 100.0, -1e4};
  const RoundMode modes[6] = {RoundMode::CAST_NONE, RoundMode::CAST_RINT, RoundMode::CAST_FLOOR,
                              RoundMode::CAST_CEIL, RoundMode::CAST_ROUND, RoundMode::CAST_TRUNC};
  for (RoundMode m : modes) {
    std::vector<uint8_t> io(128, 0);
    for (size_t i = 0; i < 32; ++i) {
      const uint16_t h = RefHalf(vals[i % 16]);
      std::memcpy(io.data() + 2 * i, &h, 2);
    }
    twin_test::Run run;
    RunAiv(&run, "half_to_int4", [&] {
      TPipe pipe;
      TBuf<TPosition::VECCALC> buf;
      pipe.InitBuffer(buf, 128);
      GlobalTensor<uint8_t> g;
      g.SetGlobalBuffer(io.data(), io.size());
      LocalTensor<uint8_t> ub = buf.Get<uint8_t>();
      DataCopy(ub, g, 128);
      Cast(ub[64].ReinterpretCast<int4b_t>(), ub.ReinterpretCast<half>(), m, 32);
      DataCopy(g, ub, 128);
    });
    CHECK_OK(run);
    std::vector<uint8_t> out(io.begin() + 64, io.begin() + 80);
    int bad = 0;
    for (size_t i = 0; i < 32; ++i) bad += RefNibble(out, i) != RefRound(vals[i % 16], m);
    CHECK_EQ(bad, 0);
  }
}

std::string Refused(const char* kernel, const std::function<void(GlobalTensor<int4b_t>&, LocalTensor<int4b_t>&)>& f) {
  std::vector<uint8_t> gm(64, 0);
  twin_test::Run run;
  RunAiv(&run, kernel, [&] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 64);
    GlobalTensor<int4b_t> g;
    g.SetGlobalBuffer(reinterpret_cast<__gm__ int4b_t*>(gm.data()), 128);
    LocalTensor<int4b_t> ub = buf.Get<int4b_t>();
    f(g, ub);
  });
  CHECK_EQ(run.status, SK_TWIN_KERNEL_ERROR);
  return run.error();
}

TWIN_TEST(odd_offsets_and_counts_are_refused_naming_int4b_t) {
  std::string e = Refused("int4_odd_gm", [](GlobalTensor<int4b_t>& g, LocalTensor<int4b_t>&) { (void)g[3]; });
  CHECK_CONTAINS(e, "GlobalTensor<int4b_t>::operator[]");
  CHECK_CONTAINS(e, "odd element count or offset 3");
  e = Refused("int4_odd_ub", [](GlobalTensor<int4b_t>&, LocalTensor<int4b_t>& ub) { (void)ub[5]; });
  CHECK_CONTAINS(e, "LocalTensor<int4b_t>::operator[]");
  CHECK_CONTAINS(e, "offset 5");
  e = Refused("int4_odd_copy", [](GlobalTensor<int4b_t>& g, LocalTensor<int4b_t>& ub) { DataCopy(ub, g, 63); });
  CHECK_CONTAINS(e, "DataCopy<int4b_t>(count)");
  e = Refused("int4_odd_cast", [](GlobalTensor<int4b_t>&, LocalTensor<int4b_t>& ub) {
    Cast(ub[64].ReinterpretCast<half>(), ub, RoundMode::CAST_NONE, 7);
  });
  CHECK_CONTAINS(e, "Cast<half, int4b_t>");
  CHECK_CONTAINS(e, "odd count 7");
  e = Refused("int4_cast_mode", [](GlobalTensor<int4b_t>&, LocalTensor<int4b_t>& ub) {
    Cast(ub[64].ReinterpretCast<half>(), ub, RoundMode::CAST_FLOOR, 8);
  });
  CHECK_CONTAINS(e, "int4b_t -> half takes CAST_NONE");
  e = Refused("int4_pad", [](GlobalTensor<int4b_t>& g, LocalTensor<int4b_t>& ub) {
    DataCopyPad(ub, g, DataCopyExtParams{1, 16, 0, 0, 0}, DataCopyPadExtParams<int4b_t>{true, 2, 0, int4b_t(0)});
  });
  CHECK_CONTAINS(e, "padding");
}

}  // namespace

int main(int argc, char** argv) { return twin_test::Main(argc, argv); }
