// Gatherb (sk_twin_gatherb.h) and the copy_ubuf_to_ubuf intrinsic
// (sk_twin_ub_intrinsics.h) against block moves worked out by hand from the
// documented layouts, and their rules (offset alignment, repeatTime range,
// dst == src, an address or offset past its buffer) failing the launch.
#include <string>
#include <vector>

#include "ascendc_util.h"
#include "ub_test_util.h"

using namespace AscendC;
using ub_test::At;
using ub_test::Put;
using ub_test::Violation;
using ub_test::WithUb;

namespace {

TWIN_TEST(gatherb_moves_whole_blocks_by_byte_offset) {
  // src: 16 blocks of 16 uint16_t, block b holds 100 * b + lane. Offsets pick blocks 15, 0, 3, 3, 7, 1, 2, 9 for
  // repeat 0 and 4, 5, 6, 8, 10, 11, 12, 13 for repeat 1. dstBlkStride 2 (every other block), dstRepStride 16.
  std::vector<uint8_t> io(4096 * 4);
  for (int b = 0; b < 16; ++b)
    for (int l = 0; l < 16; ++l) Put<uint16_t>(&io, 32 * b + 2 * l, static_cast<uint16_t>(100 * b + l));
  const uint32_t pick[16] = {15, 0, 3, 3, 7, 1, 2, 9, 4, 5, 6, 8, 10, 11, 12, 13};
  for (int k = 0; k < 16; ++k) Put<uint32_t>(&io, 1024 + 4 * k, pick[k] * 32);
  for (int i = 0; i < 2048; ++i) Put<uint16_t>(&io, 2048 + 2 * i, 0xffff);
  WithUb(&io, [](LocalTensor<uint8_t>& ub) {
    LocalTensor<uint16_t> u = ub.ReinterpretCast<uint16_t>();
    LocalTensor<uint32_t> off = ub[1024].ReinterpretCast<uint32_t>();
    GatherRepeatParams params{2, 16};
    Gatherb<uint16_t>(u[1024], u, off, 2, params);
  });
  for (int r = 0; r < 2; ++r) {
    for (int j = 0; j < 8; ++j) {
      const size_t at = 2048 + 32 * (r * 16 + j * 2);
      for (int l = 0; l < 16; ++l) CHECK_EQ(At<uint16_t>(io, at + 2 * l), 100 * pick[r * 8 + j] + l);
      for (int l = 0; l < 16; ++l) CHECK_EQ(At<uint16_t>(io, at + 32 + 2 * l), 0xffff);  // the skipped block
    }
  }
}

TWIN_TEST(gatherb_uint32_with_default_strides) {
  std::vector<uint8_t> io(4096);
  for (int i = 0; i < 64; ++i) Put<uint32_t>(&io, 4 * i, 1000u + i);                    // 8 blocks of 8
  for (int k = 0; k < 8; ++k) Put<uint32_t>(&io, 512 + 4 * k, static_cast<uint32_t>((7 - k) * 32));  // reversed
  WithUb(&io, [](LocalTensor<uint8_t>& ub) {
    LocalTensor<uint32_t> u = ub.ReinterpretCast<uint32_t>();
    GatherRepeatParams params;  // dstBlkStride 1, dstRepStride 8
    Gatherb(u[256], u, u[128], 1, params);
  });
  for (int j = 0; j < 8; ++j)
    for (int l = 0; l < 8; ++l) CHECK_EQ(At<uint32_t>(io, 1024 + 32 * j + 4 * l), 1000u + (7 - j) * 8 + l);
}

TWIN_TEST(gatherb_rules) {
  auto call = [](uint32_t first_offset, int32_t repeat, bool same) {
    return [=](LocalTensor<uint8_t>& ub) {
      LocalTensor<uint16_t> u = ub.ReinterpretCast<uint16_t>();
      LocalTensor<uint32_t> off = ub[1024].ReinterpretCast<uint32_t>();
      for (int k = 0; k < 8; ++k) off.SetValue(k, k == 0 ? first_offset : 0);
      GatherRepeatParams params;
      Gatherb<uint16_t>(same ? u : u[1024], u, off, repeat, params);
    };
  };
  CHECK_CONTAINS(Violation("gb_align", call(48, 1, false)), "offset[0] is 48 bytes; allowed: a multiple of 32 bytes");
  CHECK_CONTAINS(Violation("gb_repeat", call(0, 256, false)), "AscendC::Gatherb: repeatTime 256; allowed: 0..255");
  CHECK_CONTAINS(Violation("gb_same", call(0, 1, true)), "dst and src are the same memory");
  CHECK_CONTAINS(Violation("gb_far", call(8192, 1, false)), "gb_far");
}

TWIN_TEST(copy_ubuf_to_ubuf_moves_bursts_with_gaps) {
  // 3 bursts of 2 blocks from block 0 with source gap 1 (blocks 0-1, 3-4, 6-7) to block 16 with dest gap 2
  // (blocks 16-17, 20-21, 24-25). Block b holds the byte b in every byte.
  std::vector<uint8_t> io(4096);
  for (int b = 0; b < 16; ++b)
    for (int i = 0; i < 32; ++i) io[32 * b + i] = static_cast<uint8_t>(b);
  for (size_t i = 512; i < io.size(); ++i) io[i] = 0xee;
  WithUb(&io, [](LocalTensor<uint8_t>& ub) {
    auto* base = reinterpret_cast<uint8_t*>(ub.GetPhyAddr());
    copy_ubuf_to_ubuf(reinterpret_cast<__ubuf__ void*>(base + 512), reinterpret_cast<__ubuf__ void*>(base), 0, 3, 2,
                      1, 2);
  });
  const int from[6] = {0, 1, 3, 4, 6, 7}, to[6] = {16, 17, 20, 21, 24, 25};
  for (int k = 0; k < 6; ++k) {
    for (int i = 0; i < 32; ++i) CHECK_EQ(io[32 * to[k] + i], from[k]);
  }
  for (int i = 0; i < 32; ++i) CHECK_EQ(io[32 * 18 + i], 0xee);  // a gap block is left alone
}

TWIN_TEST(copy_ubuf_to_ubuf_rules) {
  std::string e = Violation("cu_align", [](LocalTensor<uint8_t>& ub) {
    auto* base = reinterpret_cast<uint8_t*>(ub.GetPhyAddr());
    copy_ubuf_to_ubuf(reinterpret_cast<__ubuf__ void*>(base + 16), reinterpret_cast<__ubuf__ void*>(base), 0, 1, 1, 0,
                      0);
  });
  CHECK_CONTAINS(e, "copy_ubuf_to_ubuf: dst (UB 16) and src (UB 0) must be 32-byte aligned");
  e = Violation("cu_far", [](LocalTensor<uint8_t>& ub) {
    auto* base = reinterpret_cast<uint8_t*>(ub.GetPhyAddr());
    copy_ubuf_to_ubuf(reinterpret_cast<__ubuf__ void*>(base + 2048), reinterpret_cast<__ubuf__ void*>(base), 0, 1,
                      100, 0, 0);  // 3200 bytes from byte 2048 of a 4096-byte buffer
  });
  CHECK_CONTAINS(e, "cu_far");
}

}  // namespace

int main(int argc, char** argv) { return twin_test::Main(argc, argv); }
