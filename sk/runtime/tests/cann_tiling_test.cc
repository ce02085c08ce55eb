// The tiling macros CANN's kernels use (kernel_tiling/kernel_tiling.h), checked
// against byte layouts written out by hand: offsets are the C rule for
// #pragma pack(8) computed here field by field, not taken from the structs.
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernel_operator.h"
#include "kernel_tiling/kernel_tiling.h"
#include "ascendc_util.h"
#include "twin_test.h"

BEGIN_TILING_DATA_DEF(InnerTiling)
TILING_DATA_FIELD_DEF(uint16_t, x);
TILING_DATA_FIELD_DEF(uint32_t, y);
END_TILING_DATA_DEF;

BEGIN_TILING_DATA_DEF(OuterTiling)
TILING_DATA_FIELD_DEF(uint32_t, a);
TILING_DATA_FIELD_DEF(int64_t, b);
TILING_DATA_FIELD_DEF_ARR(float, 3, arr);
TILING_DATA_FIELD_DEF_STRUCT(InnerTiling, inner);
TILING_DATA_FIELD_DEF(uint8_t, tail);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(OuterOp, OuterTiling)

// What the prelude generated from op_host does for REGISTER_TILING_DATA_CLASS(OuterOp, OuterTiling).
template <>
struct sk_twin::OpTilingDefault<0> {
  using type = OuterTiling;
};

namespace {

template <typename T>
void Put(std::vector<uint8_t>* buf, size_t off, T v) {
  std::memcpy(buf->data() + off, &v, sizeof(T));
}

// a@0 (4), b@8 (8), arr@16 (12), inner@28 {x@0, y@4} (8, align 4), tail@36; size 40 (align 8).
std::vector<uint8_t> OuterBytes() {
  std::vector<uint8_t> buf(48, 0xee);  // one byte past the struct: misaligned starts are tested at +1
  std::vector<uint8_t> out(41, 0);
  Put<uint32_t>(&out, 1 + 0, 7u);
  Put<int64_t>(&out, 1 + 8, -5000000000LL);
  Put<float>(&out, 1 + 16, 1.5f);
  Put<float>(&out, 1 + 20, -2.0f);
  Put<float>(&out, 1 + 24, 0.25f);
  Put<uint16_t>(&out, 1 + 28, 0xabcd);
  Put<uint32_t>(&out, 1 + 32, 123456u);
  Put<uint8_t>(&out, 1 + 36, 9);
  return out;
}

TWIN_TEST(kernel_side_struct_layout_is_pack_8) {
  CHECK_EQ(sizeof(InnerTiling), size_t{8});
  CHECK_EQ(sizeof(OuterTiling), size_t{40});
  OuterTiling fresh;
  CHECK_EQ(fresh.a, 0u);  // fields start at zero, as the generated structs do
  CHECK(fresh.arr[2] == 0.0f);
}

TWIN_TEST(a_tiling_buffer_shorter_than_the_struct_fails_the_launch) {
  // A tiling file written by hand one field short: the kernel would read the bytes after the buffer.
  auto* shortbuf = static_cast<uint8_t*>(sk_twin_gm_alloc_named(36, "tiling of op short"));
  auto* whole = static_cast<uint8_t*>(sk_twin_gm_alloc_named(40, "tiling of op whole"));
  std::vector<uint8_t> bytes = OuterBytes();
  std::memcpy(whole, bytes.data() + 1, 40);
  std::memcpy(shortbuf, bytes.data() + 1, 36);
  twin_test::Run bad;
  uint32_t seen = 0;
  ascendc_test::RunAiv(&bad, "short_tiling", [&] {
    GET_TILING_DATA_WITH_STRUCT(OuterTiling, t, shortbuf);
    seen = t.a;
  });
  CHECK(bad.status != SK_TWIN_OK);
  CHECK_EQ(seen, 0u);
  CHECK_CONTAINS(bad.error(), "kernel 'short_tiling'");
  CHECK_CONTAINS(bad.error(), "GET_TILING_DATA: the kernel reads its 40-byte tiling struct, but the tiling buffer "
                              "GM tensor 'tiling of op short' (36 bytes) holds 36 bytes from there");
  // From inside a buffer, what is left of it counts; a whole struct reads as before.
  twin_test::Run mid;
  ascendc_test::RunAiv(&mid, "mid_tiling", [&] { GET_TILING_DATA_WITH_STRUCT(InnerTiling, t, whole + 36); (void)t; });
  CHECK_CONTAINS(mid.error(), "8-byte tiling struct, but the tiling buffer GM tensor 'tiling of op whole' (40 bytes) "
                              "holds 4 bytes from there");
  twin_test::Run good;
  ascendc_test::RunAiv(&good, "whole_tiling", [&] {
    GET_TILING_DATA(t, whole);
    seen = t.a;
  });
  CHECK_OK(good);
  CHECK_EQ(seen, 7u);
  sk_twin_gm_free(shortbuf);
  sk_twin_gm_free(whole);
}

TWIN_TEST(get_tiling_data_with_struct_copies_from_an_unaligned_buffer) {
  std::vector<uint8_t> bytes = OuterBytes();
  GM_ADDR tiling = bytes.data() + 1;
  GET_TILING_DATA_WITH_STRUCT(OuterTiling, t, tiling);
  CHECK_EQ(t.a, 7u);
  CHECK_EQ(t.b, -5000000000LL);
  CHECK(t.arr[0] == 1.5f && t.arr[1] == -2.0f && t.arr[2] == 0.25f);
  CHECK_EQ(t.inner.x, uint16_t{0xabcd});
  CHECK_EQ(t.inner.y, 123456u);
  CHECK_EQ(t.tail, uint8_t{9});
  bytes[1] = 99;  // a copy: later writes to the buffer do not show
  CHECK_EQ(t.a, 7u);
}

BEGIN_TILING_DATA_DEF(NormOpTiling)
TILING_DATA_FIELD_DEF(uint32_t, rows);
TILING_DATA_FIELD_DEF_STRUCT(SoftMaxTiling, softmax);
TILING_DATA_FIELD_DEF_STRUCT(LayerNormSeparateTiling, layerNorm);
END_TILING_DATA_DEF;

TWIN_TEST(adv_api_tiling_structs_read_at_the_host_layout) {
  // rows@0; SoftMaxTiling@4: 16 uint32 (srcM first, tailReduceSize at +60); LayerNormSeparateTiling@68: 26 four-byte
  // fields (k2Rec float at +16, aCurLength at +96, rValueBack float at +100); size 172.
  std::vector<uint8_t> buf(172, 0);
  Put<uint32_t>(&buf, 0, 3u);
  Put<uint32_t>(&buf, 4, 11u);
  Put<uint32_t>(&buf, 4 + 60, 12u);
  Put<uint32_t>(&buf, 68, 21u);
  Put<float>(&buf, 68 + 16, 0.125f);
  Put<uint32_t>(&buf, 68 + 96, 22u);
  Put<float>(&buf, 68 + 100, -4.0f);
  GET_TILING_DATA_WITH_STRUCT(NormOpTiling, t, buf.data());
  CHECK_EQ(sizeof(NormOpTiling), size_t{172});
  CHECK(t.rows == 3u && t.softmax.srcM == 11u && t.softmax.tailReduceSize == 12u);
  CHECK(t.layerNorm.aLength == 21u && t.layerNorm.k2Rec == 0.125f && t.layerNorm.aCurLength == 22u &&
        t.layerNorm.rValueBack == -4.0f);
  AscendC::tiling::SoftMaxTiling fresh;
  CHECK_EQ(fresh.splitK, 0u);
}

TWIN_TEST(get_tiling_data_takes_the_registered_struct) {
  std::vector<uint8_t> bytes = OuterBytes();
  GET_TILING_DATA(t, bytes.data() + 1);
  CHECK_EQ(t.b, -5000000000LL);
  CHECK_EQ(t.inner.y, 123456u);
}

TWIN_TEST(get_tiling_data_member_and_pointer_forms) {
  std::vector<uint8_t> bytes = OuterBytes();
  GM_ADDR tiling = bytes.data() + 1;
  GET_TILING_DATA_MEMBER(OuterTiling, b, bv, tiling);
  CHECK_EQ(bv, -5000000000LL);
  GET_TILING_DATA_MEMBER(OuterTiling, inner, iv, tiling);
  CHECK_EQ(iv.y, 123456u);
  std::vector<uint8_t> aligned(bytes.begin() + 1, bytes.end());
  aligned.resize(64);
  GET_TILING_DATA_PTR_WITH_STRUCT(OuterTiling, p, aligned.data());
  CHECK_EQ(p->tail, uint8_t{9});
  CHECK(reinterpret_cast<const uint8_t*>(p) == aligned.data());  // a view, not a copy
  COPY_TILING_WITH_STRUCT(OuterTiling, tiling, q);
  CHECK_EQ(q->a, 7u);
  COPY_TILING_WITH_ARRAY(float, 3, tiling + 16, fa);
  CHECK((*fa)[1] == -2.0f);
}

REGISTER_TILING_FOR_TILINGKEY("TILING_KEY_VAR == 3", InnerTiling);

TWIN_TEST(register_tiling_default_names_the_struct_get_tiling_data_takes) {
  std::vector<uint8_t> bytes = OuterBytes();
  {
    REGISTER_TILING_DEFAULT(InnerTiling);  // over the op's registered OuterTiling, for this scope
    GET_TILING_DATA(t, bytes.data() + 1 + 28);
    static_assert(std::is_same<decltype(t), InnerTiling>::value, "the registered default");
    CHECK_EQ(t.x, uint16_t{0xabcd});
    CHECK_EQ(t.y, 123456u);
  }
  GET_TILING_DATA(o, bytes.data() + 1);
  static_assert(std::is_same<decltype(o), OuterTiling>::value, "the op's struct again");
}

TWIN_TEST(tiling_key_forms) {
  // This unit is compiled without -DTILING_KEY_VAR: the key is 0.
  CHECK(TILING_KEY_IS(0));
  CHECK(!TILING_KEY_IS(1));
  CHECK(TILING_KEY_LIST(4, 0, 9));
  CHECK(!TILING_KEY_LIST(1, 2));
  static_assert(TILING_KEY_LIST(0), "a constant expression, as on the device");
}

}  // namespace

int main(int argc, char** argv) { return twin_test::Main(argc, argv); }
