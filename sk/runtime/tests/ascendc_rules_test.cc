// One test per hardware rule the twin checks: the launch fails with a
// message naming the kernel, the block, the call and the offending values.
// The violation happens on block 1 of two, so the message must say which.
#include <string>
#include <vector>

#include "ascendc_util.h"

using namespace AscendC;

namespace {

// Runs body on block 1 of a two-block launch (block 0 does nothing) and
// returns the launch error, checking the common parts of the message.
std::string Violation(const char* kernel, std::function<void()> body) {
  twin_test::Run run;
  ascendc_test::RunAiv(
      &run, kernel,
      [&] {
        if (GetBlockIdx() == 1) body();
      },
      2);
  CHECK_EQ(run.status, SK_TWIN_KERNEL_ERROR);
  const std::string e = run.error();
  CHECK_CONTAINS(e, std::string("kernel '") + kernel + "'");
  CHECK_CONTAINS(e, "AIV 1 (block 1)");
  return e;
}

std::vector<half> g_gm(4096, half(1.0f));

TWIN_TEST(ub_overflow_in_init_buffer) {
  const std::string e = Violation("ub_overflow", [] {
    TPipe pipe;
    TQue<QuePosition::VECIN, 2> in;
    TQue<QuePosition::VECOUT, 2> out;
    pipe.InitBuffer(in, 2, 64 * 1024);
    pipe.InitBuffer(out, 2, 40 * 1024);  // 128 KiB + 80 KiB > 192 KiB
  });
  CHECK_CONTAINS(e, "TPipe::InitBuffer(que, num 2, len 40960)");
  CHECK_CONTAINS(e, "needs 81920 bytes");
  CHECK_CONTAINS(e, "at UB offset 131072");
  CHECK_CONTAINS(e, "196608 bytes");
  CHECK_CONTAINS(e, "only 65536 bytes are left");
  CHECK_CONTAINS(e, "TQue<VECIN, depth 2> with 2 buffer(s) of 65536 bytes");
}

TWIN_TEST(tbuf_overflow_in_init_buffer) {
  const std::string e = Violation("tbuf_overflow", [] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> big;
    pipe.InitBuffer(big, 200 * 1024);
  });
  CHECK_CONTAINS(e, "TPipe::InitBuffer(buf, len 204800)");
  CHECK_CONTAINS(e, "196608 bytes");
}

TWIN_TEST(data_copy_length_not_32_byte_aligned) {
  const std::string e = Violation("unaligned_len", [] {
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> in;
    pipe.InitBuffer(in, 1, 1024);
    GlobalTensor<half> g;
    g.SetGlobalBuffer(g_gm.data(), g_gm.size());
    LocalTensor<half> t = in.AllocTensor<half>();
    DataCopy(t, g, 100);  // 200 bytes
  });
  CHECK_CONTAINS(e, "DataCopy<half>(GM->UB, count 100)");
  CHECK_CONTAINS(e, "200 bytes is not a multiple of 32");
  CHECK_CONTAINS(e, "multiple of 16 for half");
  CHECK_CONTAINS(e, "DataCopyPad");
}

TWIN_TEST(data_copy_ub_address_not_32_byte_aligned) {
  const std::string e = Violation("unaligned_ub", [] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 1024);
    GlobalTensor<half> g;
    g.SetGlobalBuffer(g_gm.data(), g_gm.size());
    LocalTensor<half> t = buf.Get<half>();
    DataCopy(g, t[3], 16);  // UB address 6
  });
  CHECK_CONTAINS(e, "DataCopy<half>(UB->GM, count 16)");
  CHECK_CONTAINS(e, "src starts at UB address 6, not a multiple of 32");
}

TWIN_TEST(data_copy_gm_address_not_element_aligned) {
  const std::string e = Violation("unaligned_gm", [] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 1024);
    GlobalTensor<float> g;
    g.SetGlobalBuffer(reinterpret_cast<float*>(reinterpret_cast<uint8_t*>(g_gm.data()) + 2), 100);
    DataCopy(buf.Get<float>(), g, 8);
  });
  CHECK_CONTAINS(e, "DataCopy<float>(GM->UB, count 8)");
  CHECK_CONTAINS(e, "is not aligned to the 4-byte element");
}

TWIN_TEST(vector_operand_not_32_byte_aligned) {
  const std::string e = Violation("unaligned_vec", [] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 1024);
    LocalTensor<float> t = buf.Get<float>();
    Add(t, t[1], t, 16);
  });
  CHECK_CONTAINS(e, "Add<float>(count 16)");
  CHECK_CONTAINS(e, "src0 starts at UB address 4");
}

TWIN_TEST(more_alloc_tensor_than_buffers) {
  const std::string e = Violation("alloc_overrun", [] {
    TPipe pipe;
    TQue<QuePosition::VECIN, 2> in;
    pipe.InitBuffer(in, 2, 512);
    (void)in.AllocTensor<half>();
    (void)in.AllocTensor<half>();
    (void)in.AllocTensor<half>();
  });
  CHECK_CONTAINS(e, "TQue::AllocTensor");
  CHECK_CONTAINS(e, "all 2 buffer(s) of the TQue<VECIN, depth 2> with 2 buffer(s) of 512 bytes are in use");
  CHECK_CONTAINS(e, "AllocTensor number 3 without a FreeTensor");
}

TWIN_TEST(enque_past_the_queue_depth) {
  const std::string e = Violation("enque_overrun", [] {
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> in;
    pipe.InitBuffer(in, 2, 512);
    LocalTensor<half> a = in.AllocTensor<half>();
    LocalTensor<half> b = in.AllocTensor<half>();
    in.EnQue(a);
    in.EnQue(b);
  });
  CHECK_CONTAINS(e, "TQue::EnQue");
  CHECK_CONTAINS(e, "already holds 1 tensor(s), its depth");
}

TWIN_TEST(deque_on_an_empty_queue) {
  const std::string e = Violation("double_deque", [] {
    TPipe pipe;
    TQue<QuePosition::VECIN, 2> in;
    pipe.InitBuffer(in, 2, 512);
    LocalTensor<half> a = in.AllocTensor<half>();
    in.EnQue(a);
    a = in.DeQue<half>();
    (void)in.DeQue<half>();
  });
  CHECK_CONTAINS(e, "TQue::DeQue");
  CHECK_CONTAINS(e, "is empty");
  CHECK_CONTAINS(e, "DeQue exactly once per EnQue");
}

TWIN_TEST(use_after_free_tensor) {
  const std::string e = Violation("use_after_free", [] {
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> in;
    pipe.InitBuffer(in, 1, 512);
    LocalTensor<float> a = in.AllocTensor<float>();
    LocalTensor<float> view = a[8];
    in.FreeTensor(a);
    LocalTensor<float> b = in.AllocTensor<float>();  // the same buffer again
    Adds(b, view, 1.0f, 8);
  });
  CHECK_CONTAINS(e, "Adds<float>(count 8)");
  CHECK_CONTAINS(e, "src (UB [32, 512)) is used after FreeTensor released it");
}

TWIN_TEST(free_tensor_twice) {
  const std::string e = Violation("double_free", [] {
    TPipe pipe;
    TQue<QuePosition::VECOUT, 1> out;
    pipe.InitBuffer(out, 1, 512);
    LocalTensor<float> a = out.AllocTensor<float>();
    out.FreeTensor(a);
    out.FreeTensor(a);
  });
  CHECK_CONTAINS(e, "TQue::FreeTensor");
  CHECK_CONTAINS(e, "was already released by FreeTensor");
}

TWIN_TEST(get_value_after_free_tensor) {
  const std::string e = Violation("get_after_free", [] {
    TPipe pipe;
    TQue<QuePosition::VECOUT, 1> out;
    pipe.InitBuffer(out, 1, 512);
    LocalTensor<int32_t> a = out.AllocTensor<int32_t>();
    out.FreeTensor(a);
    (void)a.GetValue(0);
  });
  CHECK_CONTAINS(e, "LocalTensor::GetValue");
  CHECK_CONTAINS(e, "used after FreeTensor");
}

TWIN_TEST(use_after_the_tpipe_is_gone) {
  const std::string e = Violation("after_pipe", [] {
    LocalTensor<half> kept;
    {
      TPipe pipe;
      TBuf<> buf;
      pipe.InitBuffer(buf, 64);
      kept = buf.Get<half>();
    }
    Duplicate(kept, 1.0f, 16);
  });
  CHECK_CONTAINS(e, "Duplicate<half>(count 16)");
  CHECK_CONTAINS(e, "used after the TPipe's destruction released it");
}

// A kernel's op class keeps the kernel function's pipe: `pipe = pipeIn;` in Init.
struct OpWithPipe {
  TPipe pipe;
  TBuf<> buf;
  void Init(TPipe& pipeIn) {
    pipe = pipeIn;
    pipe.InitBuffer(buf, 256);
  }
};

TWIN_TEST(an_assigned_tpipe_is_a_handle_of_the_same_pipe) {
  twin_test::Run run;
  ascendc_test::RunAiv(&run, "pipe_assign", [] {
    TPipe pipe;
    {
      OpWithPipe op;
      op.Init(pipe);
      LocalTensor<float> t = op.buf.Get<float>();
      Duplicate(t, 2.0f, 64);
      CHECK(t.GetValue(63) == 2.0f);
      CHECK(GetTPipePtr() == &pipe);
    }
    // The op (and its handle) are gone; the pipe and the buffer it holds live on, and its next buffer follows it.
    TBuf<> next;
    pipe.InitBuffer(next, 32);
    CHECK_EQ(next.Get<uint8_t>().GetPhyAddr(), uint64_t{256});
  });
  CHECK_OK(run);
  // Released with the pipe it was assigned: using its buffer after that pipe's destruction is named.
  const std::string e = Violation("pipe_assign_gone", [] {
    LocalTensor<half> kept;
    {
      TPipe pipe;
      OpWithPipe op;
      op.Init(pipe);
      kept = op.buf.Get<half>();
    }
    Duplicate(kept, 1.0f, 16);
  });
  CHECK_CONTAINS(e, "used after the TPipe's destruction released it");
}

TWIN_TEST(tensor_access_outside_its_buffer) {
  const std::string e = Violation("past_buffer", [] {
    TPipe pipe;
    TBuf<> a, b;
    pipe.InitBuffer(a, 256);
    pipe.InitBuffer(b, 256);
    LocalTensor<float> t = a.Get<float>();
    Muls(t, t, 2.0f, 128);  // 512 bytes of a 256-byte buffer
  });
  CHECK_CONTAINS(e, "Muls<float>(count 128)");
  CHECK_CONTAINS(e, "dst is accessed at UB [0, 512), outside its buffer [0, 256)");
}

TWIN_TEST(global_tensor_access_outside_its_size) {
  const std::string e = Violation("gm_oob", [] {
    GlobalTensor<half> g;
    g.SetGlobalBuffer(g_gm.data(), 100);
    (void)g[90].GetValue(10);
  });
  CHECK_CONTAINS(e, "GlobalTensor::GetValue");
  CHECK_CONTAINS(e, "element 100");
  CHECK_CONTAINS(e, "SetGlobalBuffer size is 100 elements");
}

TWIN_TEST(data_copy_outside_the_global_tensor) {
  const std::string e = Violation("gm_copy_oob", [] {
    TPipe pipe;
    TBuf<> buf;
    pipe.InitBuffer(buf, 1024);
    GlobalTensor<half> g;
    g.SetGlobalBuffer(g_gm.data(), 100);
    DataCopy(buf.Get<half>(), g[96], 16);
  });
  CHECK_CONTAINS(e, "DataCopy<half>(GM->UB, count 16)");
  CHECK_CONTAINS(e, "GM bytes [192, 224) lie outside the GlobalTensor, whose SetGlobalBuffer size is 100 elements");
}

TWIN_TEST(get_with_offset_not_32_byte_aligned) {
  const std::string e = Violation("tbuf_offset", [] {
    TPipe pipe;
    TBuf<> buf;
    pipe.InitBuffer(buf, 1024);
    (void)buf.GetWithOffset<float>(8, 16);
  });
  CHECK_CONTAINS(e, "TBuf::GetWithOffset(size 8, bufOffset 16)");
  CHECK_CONTAINS(e, "not a multiple of 32 bytes");
}

TWIN_TEST(compare_count_not_whole_repeats) {
  const std::string e = Violation("cmp_count", [] {
    TPipe pipe;
    TBuf<> buf, m;
    pipe.InitBuffer(buf, 1024);
    pipe.InitBuffer(m, 64);
    LocalTensor<float> t = buf.Get<float>();
    Compare(m.Get<uint8_t>(), t, t, CMPMODE::LT, 40);
  });
  CHECK_CONTAINS(e, "Compare<float>(LT, count 40)");
  CHECK_CONTAINS(e, "160 bytes is not a multiple of 256");
}

TWIN_TEST(queue_without_init_buffer) {
  const std::string e = Violation("no_init", [] {
    TQue<QuePosition::VECIN, 1> in;
    (void)in.AllocTensor<half>();
  });
  CHECK_CONTAINS(e, "TQue::AllocTensor: the queue/buffer was never given memory");
}

TWIN_TEST(when_every_block_breaks_a_rule_the_report_is_the_lowest_blocks) {
  for (int round = 0; round < 5; ++round) {
    twin_test::Run run;
    ascendc_test::RunAiv(
        &run, "all_blocks",
        [] {
          TPipe pipe;
          TQue<QuePosition::VECIN, 1> in;
          pipe.InitBuffer(in, 1, 64);
          (void)in.DeQue<half>();
        },
        8);
    CHECK_EQ(run.status, SK_TWIN_KERNEL_ERROR);
    CHECK_CONTAINS(run.error(), "kernel 'all_blocks' on AIV 0 (block 0): TQue::DeQue");
  }
}

TWIN_TEST(unified_buffer_from_an_aic) {
  twin_test::Run run;
  ascendc_test::Body() = [] {
    TPipe pipe;
    TBuf<> buf;
    pipe.InitBuffer(buf, 64);
    Duplicate(buf.Get<half>(), 0.0f, 16);
  };
  twin_test::Launch(&run, "cube_ub", ascendc_test::BodyEntry, {1, 1, 0}, {0}, 3000);
  CHECK_EQ(run.status, SK_TWIN_KERNEL_ERROR);
  CHECK_CONTAINS(run.error(), "AIC 0 (block 0): Duplicate<half>(count 16): dst lives in the Unified Buffer");
}

}  // namespace

int main(int argc, char** argv) { return twin_test::Main(argc, argv); }
