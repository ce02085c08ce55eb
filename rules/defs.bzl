"""Public API of rules_superkernel.

    load("@rules_superkernel//rules:defs.bzl", "sk_sub_kernel", "sk_op", "super_kernel", "sk_model",
         "sk_cann_launch_library", "sk_tiling_task", "sk_prefetch_task", "sk_cann_op")
"""

load("//rules/private:cann_op.bzl", _sk_cann_op = "sk_cann_op")
load("//rules/private:launch.bzl", _sk_cann_launch_library = "sk_cann_launch_library")
load("//rules/private:providers.bzl", _SkOpInfo = "SkOpInfo", _SkSubKernelInfo = "SkSubKernelInfo", _SkTaskInfo = "SkTaskInfo", _SuperKernelInfo = "SuperKernelInfo")
load("//rules/private:sk_model.bzl", _sk_model = "sk_model", _sk_model_test = "sk_model_test")
load("//rules/private:sk_sub_kernel.bzl", _sk_op = "sk_op", _sk_sub_kernel = "sk_sub_kernel")
load("//rules/private:sk_task.bzl", _sk_prefetch_task = "sk_prefetch_task", _sk_tiling_task = "sk_tiling_task")
load("//rules/private:super_kernel.bzl", _super_kernel = "super_kernel")

sk_sub_kernel = _sk_sub_kernel
sk_op = _sk_op
super_kernel = _super_kernel
sk_model = _sk_model
sk_model_test = _sk_model_test
sk_tiling_task = _sk_tiling_task
sk_prefetch_task = _sk_prefetch_task
sk_cann_launch_library = _sk_cann_launch_library
sk_cann_op = _sk_cann_op

SkSubKernelInfo = _SkSubKernelInfo
SkOpInfo = _SkOpInfo
SkTaskInfo = _SkTaskInfo
SuperKernelInfo = _SuperKernelInfo

def requires_cann():
    """`target_compatible_with` value for targets that only build with CANN.

    Without CANN they are skipped by `bazel build //...`, and building one
    explicitly fails naming the constraint that says how to point at CANN.
    """
    return [Label("@sk_cann//:compatible")]
