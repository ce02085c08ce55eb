// TQue with a TQueConfig (TQue<pos, depth, &config>): a queue like any other,
// whose InitBuffer must match the config's bufferNumber/bufferLen where they
// are not 0 (the device sizes the queue at compile time from them).
#include <functional>
#include <type_traits>
#include <utility>
#include <vector>

#include "ascendc_util.h"

using namespace AscendC;

namespace {

static_assert(std::is_same_v<AscendC::int4b_t, ::int4b_t>);

constexpr TQueConfig kSized{false, false, false, 1024, 2};
constexpr TQueConfig kFree = {};

void Launch(twin_test::Run* run, const char* name, std::function<void()> body) {
  ascendc_test::Body() = std::move(body);
  twin_test::Launch(run, name, ascendc_test::BodyEntry, {1, 0, 1}, {0}, 3000);
}

TWIN_TEST(configured_queue_carries_data_like_a_plain_one) {
  std::vector<float> in(256), out(256, 0.0f);
  for (int i = 0; i < 256; ++i) in[i] = 0.5f * i - 3.0f;
  twin_test::Run run;
  Launch(&run, "que_cfg", [&] {
    TPipe pipe;
    TQue<TPosition::VECIN, 1, &kSized> q;
    TQue<TPosition::VECOUT, 1, &kFree> o;
    pipe.InitBuffer(q, 2, 1024);
    pipe.InitBuffer(o, 1, 1024);
    CHECK(::GetTPipePtr() == &pipe);  // the global name CANN's helpers call
    GlobalTensor<float> gi, go;
    gi.SetGlobalBuffer(in.data(), in.size());
    go.SetGlobalBuffer(out.data(), out.size());
    LocalTensor<float> t = q.AllocTensor<float>();
    DataCopy(t, gi, 256);
    q.EnQue(t);
    LocalTensor<float> u = q.DeQue<float>();
    LocalTensor<float> v = o.AllocTensor<float>();
    Adds(v, u, 1.0f, 256);
    o.EnQue(v);
    q.FreeTensor(u);
    LocalTensor<float> w = o.DeQue<float>();
    DataCopy(go, w, 256);
    o.FreeTensor(w);
  });
  CHECK_OK(run);
  int bad = 0;
  for (int i = 0; i < 256; ++i) bad += out[i] != 0.5f * i - 2.0f;
  CHECK_EQ(bad, 0);
}

TWIN_TEST(init_buffer_other_than_the_config_is_named) {
  twin_test::Run run;
  Launch(&run, "que_cfg_bad", [&] {
    TPipe pipe;
    TQue<TPosition::VECIN, 1, &kSized> q;
    pipe.InitBuffer(q, 1, 1024);
  });
  CHECK_EQ(run.status, SK_TWIN_KERNEL_ERROR);
  CHECK_CONTAINS(run.error(), "TPipe::InitBuffer(num 1, len 1024)");
  CHECK_CONTAINS(run.error(), "bufferNumber 2, bufferLen 1024");
}

}  // namespace

int main(int argc, char** argv) { return twin_test::Main(argc, argv); }
