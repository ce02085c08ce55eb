// Drives a CANN launch API (SK_HEADER, namespace SK_NS) linked against the
// recording ACL stand-in: every Args word gets a distinct recognisable value,
// printed as JSON for test_cann_launch.py, then Launch runs on a fake stream.
// With `refuse` as argument the first tensor is null instead: the launch must
// be refused and record no ACL call.
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <type_traits>

#include SK_HEADER

int main(int argc, char** argv) {
  SK_NS::Args args;
  static_assert(std::is_trivially_copyable<SK_NS::Args>::value && sizeof(args) % 8 == 0, "Args is 8-byte words");
  uint64_t words[sizeof(args) / 8];
  for (size_t k = 0; k < sizeof(args) / 8; ++k) words[k] = 0x1000000ull * (k + 1);
  const bool refuse = argc > 1 && strcmp(argv[1], "refuse") == 0;
  if (refuse) words[0] = 0;
  memcpy(&args, words, sizeof args);
  printf("{\"words\": [");
  for (size_t k = 0; k < sizeof(args) / 8; ++k) printf("%s\"0x%llx\"", k ? ", " : "", (unsigned long long)words[k]);
  const sk_launch::Status status = SK_NS::Launch(args, reinterpret_cast<void*>(0x5157));
  printf("], \"code\": %d, \"error\": \"", status.code);
  for (const char* c = status.error.c_str(); *c; ++c) printf(*c == '"' || *c == '\\' ? "\\%c" : "%c", *c);
  printf("\"}\n");
  return 0;
}
