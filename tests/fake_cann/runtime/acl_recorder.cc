// A recording stand-in for the ACL calls of a launch API (include/acl/acl.h).
//
// Every call appends one JSON line to the file named by $SK_FAKE_ACL_LOG
// (stderr when unset; relative: to $BUILD_WORKING_DIRECTORY under `bazel run`) with its arguments: a binary's length and FNV-1a 64
// hash, a kernel name, every appended argument's size and value (as a
// little-endian uint64 when 8 bytes), a launch's block count and stream.
// Handles are small integers, so a test can follow them from call to call.
// $SK_FAKE_ACL_FAIL=<call name> makes that call return ACL_ERROR_INVALID_PARAM.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mutex>
#include <string>

#include "acl/acl.h"

namespace {

std::mutex mu;
uintptr_t next_handle = 1;
// The address aclrtGetHardwareSyncAddr hands out (recorded, so a test can find it in slot 0).
const uintptr_t kFftsAddress = 0xff7500000ull;

// $SK_FAKE_ACL_LOG; a relative path under `bazel run` is relative to the directory bazel was run
// from ($BUILD_WORKING_DIRECTORY), as the user wrote it, not to the program's runfiles tree.
std::string LogPath() {
  const char* path = getenv("SK_FAKE_ACL_LOG");
  if (path == nullptr || *path == '\0') return "";
  const char* cwd = getenv("BUILD_WORKING_DIRECTORY");
  if (path[0] == '/' || cwd == nullptr || *cwd == '\0') return path;
  return std::string(cwd) + "/" + path;
}

void Record(const std::string& line) {
  const std::string path = LogPath();
  FILE* f = !path.empty() ? fopen(path.c_str(), "a") : stderr;
  if (!f) return;
  fprintf(f, "%s\n", line.c_str());
  if (f != stderr) fclose(f);
}

std::string Hex(uint64_t v) {
  char buf[32];
  snprintf(buf, sizeof buf, "\"0x%llx\"", static_cast<unsigned long long>(v));
  return buf;
}

aclError Result(const char* call) {
  const char* fail = getenv("SK_FAKE_ACL_FAIL");
  return fail && strcmp(fail, call) == 0 ? ACL_ERROR_INVALID_PARAM : ACL_SUCCESS;
}

void* NewHandle() { return reinterpret_cast<void*>(next_handle++); }

std::string Handle(const void* h) { return std::to_string(reinterpret_cast<uintptr_t>(h)); }

}  // namespace

extern "C" {

aclError aclrtBinaryLoadFromData(const void* data, size_t length, const aclrtBinaryLoadOptions* options,
                                 aclrtBinHandle* binHandle) {
  std::lock_guard<std::mutex> lock(mu);
  uint64_t hash = 1469598103934665603ull;
  for (size_t i = 0; i < length; ++i) hash = (hash ^ static_cast<const unsigned char*>(data)[i]) * 1099511628211ull;
  *binHandle = NewHandle();
  Record("{\"call\": \"aclrtBinaryLoadFromData\", \"length\": " + std::to_string(length) + ", \"fnv1a64\": " +
         Hex(hash) + ", \"options\": " + (options ? "true" : "null") + ", \"bin\": " + Handle(*binHandle) + "}");
  return Result("aclrtBinaryLoadFromData");
}

aclError aclrtBinaryLoadFromFile(const char* binPath, aclrtBinaryLoadOptions* options, aclrtBinHandle* binHandle) {
  std::lock_guard<std::mutex> lock(mu);
  (void)options;
  *binHandle = NewHandle();
  Record("{\"call\": \"aclrtBinaryLoadFromFile\", \"path\": \"" + std::string(binPath) + "\", \"bin\": " +
         Handle(*binHandle) + "}");
  return Result("aclrtBinaryLoadFromFile");
}

aclError aclrtBinaryUnLoad(aclrtBinHandle binHandle) {
  std::lock_guard<std::mutex> lock(mu);
  Record("{\"call\": \"aclrtBinaryUnLoad\", \"bin\": " + Handle(binHandle) + "}");
  return Result("aclrtBinaryUnLoad");
}

aclError aclrtBinaryGetFunction(const aclrtBinHandle binHandle, const char* kernelName, aclrtFuncHandle* funcHandle) {
  std::lock_guard<std::mutex> lock(mu);
  *funcHandle = NewHandle();
  Record("{\"call\": \"aclrtBinaryGetFunction\", \"bin\": " + Handle(binHandle) + ", \"kernel\": \"" +
         kernelName + "\", \"func\": " + Handle(*funcHandle) + "}");
  return Result("aclrtBinaryGetFunction");
}

aclError aclrtGetHardwareSyncAddr(void** addr) {
  std::lock_guard<std::mutex> lock(mu);
  *addr = reinterpret_cast<void*>(kFftsAddress);
  Record("{\"call\": \"aclrtGetHardwareSyncAddr\", \"addr\": " + Hex(kFftsAddress) + "}");
  return Result("aclrtGetHardwareSyncAddr");
}

aclError aclrtKernelArgsInit(aclrtFuncHandle funcHandle, aclrtArgsHandle* argsHandle) {
  std::lock_guard<std::mutex> lock(mu);
  *argsHandle = NewHandle();
  Record("{\"call\": \"aclrtKernelArgsInit\", \"func\": " + Handle(funcHandle) + ", \"args\": " +
         Handle(*argsHandle) + "}");
  return Result("aclrtKernelArgsInit");
}

aclError aclrtKernelArgsAppend(aclrtArgsHandle argsHandle, void* param, size_t paramSize,
                               aclrtParamHandle* paramHandle) {
  std::lock_guard<std::mutex> lock(mu);
  uint64_t value = 0;
  if (paramSize == sizeof value) memcpy(&value, param, sizeof value);
  *paramHandle = NewHandle();
  Record("{\"call\": \"aclrtKernelArgsAppend\", \"args\": " + Handle(argsHandle) + ", \"size\": " +
         std::to_string(paramSize) + ", \"value\": " + (paramSize == sizeof value ? Hex(value) : "null") + "}");
  return Result("aclrtKernelArgsAppend");
}

aclError aclrtKernelArgsFinalize(aclrtArgsHandle argsHandle) {
  std::lock_guard<std::mutex> lock(mu);
  Record("{\"call\": \"aclrtKernelArgsFinalize\", \"args\": " + Handle(argsHandle) + "}");
  return Result("aclrtKernelArgsFinalize");
}

aclError aclrtLaunchKernelWithConfig(aclrtFuncHandle funcHandle, uint32_t numBlocks, aclrtStream stream,
                                     aclrtLaunchKernelCfg* cfg, aclrtArgsHandle argsHandle, void* reserve) {
  std::lock_guard<std::mutex> lock(mu);
  Record("{\"call\": \"aclrtLaunchKernelWithConfig\", \"func\": " + Handle(funcHandle) + ", \"blocks\": " +
         std::to_string(numBlocks) + ", \"stream\": " + Hex(reinterpret_cast<uintptr_t>(stream)) +
         ", \"cfg\": " + (cfg ? "true" : "null") + ", \"args\": " + Handle(argsHandle) + ", \"reserve\": " +
         (reserve ? "true" : "null") + "}");
  return Result("aclrtLaunchKernelWithConfig");
}

}  // extern "C"
