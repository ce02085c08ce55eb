// Kernel printing and assertions (sk_twin_debug.h): PRINTF lines and failed
// ASSERTs, prefixed with the worker as the device prints them.
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>

#include "core.h"
#include "sk_twin.h"
#include "sk_twin_half.h"

namespace {

std::mutex g_print_mu;

// "[AIV Block b/n] ": on AIVs b counts block * sub_block_num + sub (GetBlockIdx), n all AIVs.
std::string Prefix() {
  const bool aiv = ::sk_twin_core_type() == 1;
  const int64_t sub_num = aiv ? ::sk_twin_sub_block_num() : 1;
  const int64_t idx = ::sk_twin_block_idx() * sub_num + (aiv ? ::sk_twin_sub_block_idx() : 0);
  const int64_t total = ::sk_twin_block_num() * sub_num;
  return std::string(aiv ? "[AIV Block " : "[AIC Block ") + std::to_string(idx) + "/" + std::to_string(total) + "] ";
}

std::string Format(const char* fmt, va_list ap) {
  if (fmt == nullptr) return "";
  va_list again;
  va_copy(again, ap);
  const int n = std::vsnprintf(nullptr, 0, fmt, ap);
  std::string out(n > 0 ? static_cast<size_t>(n) : 0, '\0');
  if (n > 0) std::vsnprintf(&out[0], out.size() + 1, fmt, again);
  va_end(again);
  return out;
}

// The whole text in one write, so lines of different workers never mix.
void Emit(const std::string& text) {
  std::lock_guard<std::mutex> lock(g_print_mu);
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
}

const char* BaseName(const char* path) {
  const char* slash = path == nullptr ? nullptr : std::strrchr(path, '/');
  return slash == nullptr ? (path == nullptr ? "?" : path) : slash + 1;
}

}  // namespace

extern "C" void sk_twin_printf(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  std::string text = Format(fmt, ap);
  va_end(ap);
  Emit(Prefix() + text);
}

extern "C" void sk_twin_assert_fail(const char* file, uint32_t line, const char* func, const char* expr,
                                    const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  std::string detail = Format(fmt, ap);
  va_end(ap);
  while (!detail.empty() && detail.back() == '\n') detail.pop_back();
  const std::string what = std::string("[ASSERT] ") + BaseName(file) + ":" + std::to_string(line) + ": " +
                           (func == nullptr ? "?" : func) + ": Assertion `" + (expr == nullptr ? "" : expr) +
                           "' failed. " + detail;
  Emit(Prefix() + what + "\n");
  sk_twin::FailCurrent(what);
}

namespace {

std::string Value(const uint8_t* p, uint32_t kind, uint32_t bytes) {
  char buf[64];
  if (kind == 3 || kind == 4) {
    uint16_t bits;
    std::memcpy(&bits, p, 2);
    // half: 5 exponent and 10 fraction bits; bfloat16: 8 and 7.
    const double d = kind == 3 ? sk_twin_fp::ToDouble(bits, 5, 10) : sk_twin_fp::ToDouble(bits, 8, 7);
    std::snprintf(buf, sizeof buf, "%f", d);
  } else if (kind == 0) {
    if (bytes == 8) {
      double d;
      std::memcpy(&d, p, 8);
      std::snprintf(buf, sizeof buf, "%f", d);
    } else {
      float f;
      std::memcpy(&f, p, 4);
      std::snprintf(buf, sizeof buf, "%f", static_cast<double>(f));
    }
  } else {
    uint64_t u = 0;
    std::memcpy(&u, p, bytes);  // little-endian: the low bytes
    if (kind == 1) {
      const int shift = 64 - 8 * static_cast<int>(bytes);
      const int64_t s = static_cast<int64_t>(u << shift) >> shift;
      std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(s));
    } else {
      std::snprintf(buf, sizeof buf, "%llu", static_cast<unsigned long long>(u));
    }
  }
  return buf;
}

}  // namespace

extern "C" void sk_twin_dump_tensor(uint32_t desc, uint64_t addr, const char* data_type, const char* position,
                                    uint32_t dump_size, const void* data, uint32_t kind, uint32_t elem_bytes) {
  char head[256];
  std::snprintf(head, sizeof head, "DumpTensor: desc=%u, addr=%llx, data_type=%s, position=%s, dump_size=%u\n", desc,
                static_cast<unsigned long long>(addr), data_type, position, dump_size);
  std::string text = head;
  text += "[";
  const uint8_t* p = static_cast<const uint8_t*>(data);
  for (uint32_t i = 0; i < dump_size; ++i) {
    if (i) text += ", ";
    text += Value(p + uint64_t{i} * elem_bytes, kind, elem_bytes);
  }
  text += "]\n";
  Emit(Prefix() + text);
}
