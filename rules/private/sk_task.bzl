"""sk_tiling_task / sk_prefetch_task: tasks of other engines that a SuperKernel talks to through
memory-semantic GM words (facts section 15): the AI CPU task that computes a tiling-sink op's tiling, and
the SDMA task that prefetches weights into L2."""

load(":providers.bzl", "SkOpInfo", "SkTaskInfo")

def _event(ctx, name, value):
    if value < -1:
        fail("%s: %s = %d; an event id is an integer >= 0 (-1: none)" % (ctx.label, name, value))
    return None if value == -1 else value

def _tiling_task_impl(ctx):
    op = ctx.attr.op[SkOpInfo]
    if not op.kernel.tiling_keys:
        fail("%s: op %s runs %s, which has no tiling_keys: nothing waits for a tiling task" % (ctx.label, op.label, op.kernel.label))
    return [SkTaskInfo(label = ctx.label, kind = "tiling", op = op.label, wait_event = _event(ctx, "wait_event", ctx.attr.wait_event), send_event = None, tensor = None)]

sk_tiling_task = rule(
    implementation = _tiling_task_impl,
    doc = """The AI CPU task that computes a tiling-sink op's tiling inside a SuperKernel (facts section 15.3).

It waits for `wait_event` (sent by an earlier op of the SuperKernel, e.g. the routing op whose
output the tiling reads), calls the kernel's `tiling_function` on the op's inputs, writes the
tiling buffer, tiling key and block count, then releases the op's lock; the op waits for the lock
at its start. A SuperKernel writes an op's event with the next op's barrier, so `wait_event` must
come from an op at least two before the tiling-sink op (put e.g. the token permute between them).
List it in sk_model's `tasks`; a tiling-sink op in a SuperKernel without one fails the build.""",
    attrs = {
        "op": attr.label(mandatory = True, providers = [SkOpInfo], doc = "The sk_op of the tiling-sink op"),
        "wait_event": attr.int(default = -1, doc = "The event it waits for before it runs (-1: it starts with the launch)"),
    },
    provides = [SkTaskInfo],
)

def _prefetch_task_impl(ctx):
    if ctx.attr.send_event < 0:
        fail("%s: send_event = %d; the op that reads the tensor waits for this event id (>= 0)" % (ctx.label, ctx.attr.send_event))
    return [SkTaskInfo(label = ctx.label, kind = "prefetch", op = None, wait_event = _event(ctx, "wait_event", ctx.attr.wait_event), send_event = ctx.attr.send_event, tensor = ctx.attr.tensor)]

sk_prefetch_task = rule(
    implementation = _prefetch_task_impl,
    doc = """The SDMA task that prefetches a tensor (weights) into L2 while a SuperKernel runs (facts section 15.1).

After `wait_event` (if any) it loads `tensor`, then sends `send_event`, which the op that reads
the tensor lists in its `recv_events`. List it in sk_model's `tasks`.""",
    attrs = {
        "tensor": attr.string(mandatory = True, doc = "The tensor it loads"),
        "send_event": attr.int(mandatory = True, doc = "The event it sends when done"),
        "wait_event": attr.int(default = -1, doc = "The event it waits for first (-1: none)"),
    },
    provides = [SkTaskInfo],
)
