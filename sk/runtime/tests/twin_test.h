// A minimal test harness for the twin's C++ tests: TEST cases registered at
// static-init time, CHECKs that record failures, launch helpers.
#ifndef SK_TWIN_TESTS_TWIN_TEST_H_
#define SK_TWIN_TESTS_TWIN_TEST_H_

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "sk_twin.h"

namespace twin_test {

struct Case {
  const char* name;
  void (*fn)();
};

inline std::vector<Case>& Cases() {
  static std::vector<Case> cases;
  return cases;
}

inline int& Failures() {
  static int failures = 0;
  return failures;
}

struct Register {
  Register(const char* name, void (*fn)()) { Cases().push_back({name, fn}); }
};

inline void Fail(const char* file, int line, const std::string& what) {
  std::fprintf(stderr, "%s:%d: FAILED: %s\n", file, line, what.c_str());
  ++Failures();
}

// Owns a result; launch status, error and counters in one place.
struct Run {
  SkTwinResult* r = nullptr;
  int status = -1;
  Run() = default;
  Run(const Run&) = delete;
  Run& operator=(const Run&) = delete;
  ~Run() { sk_twin_result_free(r); }
  std::string error() const { return sk_twin_result_error(r); }
  std::string residual() const { return sk_twin_result_residual(r); }
  uint64_t counter(uint32_t c) const { return sk_twin_result_counter(r, c); }
};

struct Topo {
  uint32_t block_dim;
  uint32_t aic;
  uint32_t aiv;
};

inline void Launch(Run* run, const char* name, void (*entry)(), Topo t, std::vector<uint64_t> params = {},
                   uint32_t timeout_ms = 0, uint32_t trace = 0, uint32_t coreid_offset = 0) {
  static thread_local std::vector<uint64_t> storage;
  storage = std::move(params);
  if (storage.empty()) storage.push_back(0);
  SkTwinLaunch l{};
  l.name = name;
  l.entry = reinterpret_cast<void*>(entry);
  l.num_args = SK_TWIN_PARA_BASE_ENTRY;
  l.block_dim = t.block_dim;
  l.aic_ration = t.aic;
  l.aiv_ration = t.aiv;
  l.params = storage.data();
  l.num_params = static_cast<uint32_t>(storage.size());
  l.timeout_ms = timeout_ms;
  l.trace = trace;
  l.coreid_offset = coreid_offset;
  run->status = sk_twin_launch(&l, &run->r);
}

inline uint64_t Addr(const void* p) { return reinterpret_cast<uint64_t>(p); }

inline std::string Show(const std::string& v) { return "'" + v + "'"; }
template <typename T>
std::string Show(const T& v) {
  return std::to_string(v);
}

inline bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

inline int Main(int argc, char** argv) {
  const char* only = argc > 1 ? argv[1] : nullptr;
  int ran = 0;
  for (const Case& c : Cases()) {
    if (only != nullptr && std::strcmp(only, c.name) != 0) continue;
    int before = Failures();
    c.fn();
    ++ran;
    std::fprintf(stderr, "[%s] %s\n", Failures() == before ? "  OK  " : "FAILED", c.name);
  }
  if (ran == 0) {
    std::fprintf(stderr, "no test matched\n");
    return 2;
  }
  std::fprintf(stderr, "%d test(s), %d failure(s)\n", ran, Failures());
  return Failures() == 0 ? 0 : 1;
}

}  // namespace twin_test

#define TWIN_TEST(name)                                          \
  static void name();                                            \
  static twin_test::Register register_##name(#name, &name);      \
  static void name()

#define CHECK(cond)                                                        \
  do {                                                                     \
    if (!(cond)) twin_test::Fail(__FILE__, __LINE__, "CHECK(" #cond ")"); \
  } while (0)

#define CHECK_EQ(a, b)                                                                              \
  do {                                                                                              \
    auto va_ = (a);                                                                                 \
    auto vb_ = (b);                                                                                 \
    if (!(va_ == vb_)) {                                                                            \
      twin_test::Fail(__FILE__, __LINE__,                                                           \
                      std::string(#a " == " #b ": ") + twin_test::Show(va_) + " vs " + twin_test::Show(vb_)); \
    }                                                                                               \
  } while (0)

#define CHECK_OK(run)                                                                               \
  do {                                                                                              \
    if ((run).status != SK_TWIN_OK) twin_test::Fail(__FILE__, __LINE__, "launch failed: " + (run).error()); \
    if (!(run).residual().empty()) twin_test::Fail(__FILE__, __LINE__, "residual: " + (run).residual()); \
  } while (0)

#define CHECK_CONTAINS(text, part)                                                               \
  do {                                                                                           \
    std::string t_ = (text);                                                                     \
    if (!twin_test::Contains(t_, part)) {                                                        \
      twin_test::Fail(__FILE__, __LINE__, std::string("expected '") + (part) + "' in: " + t_);  \
    }                                                                                            \
  } while (0)

#endif  // SK_TWIN_TESTS_TWIN_TEST_H_
