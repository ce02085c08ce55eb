/*
 * Fake CANN toolkit: the part of the ACL runtime API (acl/acl.h) that a
 * super_kernel's launch API calls, declared as CANN Runtime's "Kernel
 * loading and execution" chapter documents it. runtime/acl_recorder.cc
 * implements it by recording every call; nothing here talks to a device.
 */
#ifndef FAKE_CANN_ACL_ACL_H_
#define FAKE_CANN_ACL_ACL_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef int aclError;
#define ACL_SUCCESS 0
#define ACL_ERROR_INVALID_PARAM 100000

typedef void* aclrtStream;
typedef void* aclrtBinHandle;
typedef void* aclrtFuncHandle;
typedef void* aclrtArgsHandle;
typedef void* aclrtParamHandle;

typedef struct aclrtBinaryLoadOption aclrtBinaryLoadOption;
typedef struct aclrtBinaryLoadOptions {
  aclrtBinaryLoadOption* options;
  size_t numOpt;
} aclrtBinaryLoadOptions;

typedef struct aclrtLaunchKernelAttr aclrtLaunchKernelAttr;
typedef struct aclrtLaunchKernelCfg {
  aclrtLaunchKernelAttr* attrs;
  size_t numAttrs;
} aclrtLaunchKernelCfg;

aclError aclrtBinaryLoadFromData(const void* data, size_t length, const aclrtBinaryLoadOptions* options,
                                 aclrtBinHandle* binHandle);
aclError aclrtBinaryLoadFromFile(const char* binPath, aclrtBinaryLoadOptions* options, aclrtBinHandle* binHandle);
aclError aclrtBinaryUnLoad(aclrtBinHandle binHandle);
aclError aclrtBinaryGetFunction(const aclrtBinHandle binHandle, const char* kernelName, aclrtFuncHandle* funcHandle);
aclError aclrtGetHardwareSyncAddr(void** addr);
aclError aclrtKernelArgsInit(aclrtFuncHandle funcHandle, aclrtArgsHandle* argsHandle);
aclError aclrtKernelArgsAppend(aclrtArgsHandle argsHandle, void* param, size_t paramSize,
                               aclrtParamHandle* paramHandle);
aclError aclrtKernelArgsFinalize(aclrtArgsHandle argsHandle);
aclError aclrtLaunchKernelWithConfig(aclrtFuncHandle funcHandle, uint32_t numBlocks, aclrtStream stream,
                                     aclrtLaunchKernelCfg* cfg, aclrtArgsHandle argsHandle, void* reserve);

#ifdef __cplusplus
}
#endif

#endif /* FAKE_CANN_ACL_ACL_H_ */
