// acl/acl.h on the CPU twin. In CANN this is the host runtime API (device,
// stream and memory management: aclrtMalloc, aclrtLaunchKernel, ...). A
// kernel never calls it on the device; some include it for its error-code
// type only. The twin gives kernels that type and its success value; every
// runtime function stays undeclared, so a kernel that calls one fails to
// compile naming it.
#ifndef SK_TWIN_ACL_ACL_H_
#define SK_TWIN_ACL_ACL_H_

typedef int aclError;
static const int ACL_SUCCESS = 0;

#endif  // SK_TWIN_ACL_ACL_H_
