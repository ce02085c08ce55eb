"""Build a model's kernels, run them separately and fused on the CPU twin, compare: the library of `sk run`.

    built = build(m, build_dir, compiler=..., ld=..., objcopy=...)   # or load_built(manifest, m)
    report = execute(m, built, seed=0, repeat=3)                     # a RunReport; nothing printed
    report.lines()                                                    # the text `sk run` prints
    write_profile(report, "prof_result"); write_trace(report, "prof_result/trace.json")

build() runs, in this process, the same library calls as the sk commands a
Bazel action runs, so their outputs are byte-identical to Bazel's:
  * per kernel: a plain (standalone) compile -> <key>.so
  * per SK scope and op: an SK-mode compile (the scope's options, loc
    start/middle/end by position), wrap, pack; kernel_infos.json; gen; entry
    compile; link; <scope>.so
  * the twin runtime (sk.twin.binding.build_runtime)

execute(): every tensor is filled from a seeded generator; (i) every op as its
own launch, (ii) ops of a scope as one SuperKernel launch (ops outside scopes
stay separate); every tensor is compared byte for byte. Then `repeat - 1` more
timed rounds of each. Session holds one model's loaded libraries, memory and
launch specs for callers that time runs themselves (bench/launch.py).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import shutil
import statistics
import tempfile

from sk.toolflow import toolargv
from sk.engine import inherited, kernel_types, planfacts
from sk.twin import model as model_mod
from sk.twin import reference
from sk.base import infile, jsonload
from sk.base.errors import SkError
from sk.base.toolrun import write_text_atomic

SK_OP_TYPE = "SuperKernel"
CSV_HEADER = ("OP Type", "Core Type", "Count", "Total Time(us)", "Min Time(us)", "Avg Time(us)", "Max Time(us)",
              "Ratio(%)")


@dataclasses.dataclass(frozen=True)
class BuiltScope:
    """A fused SuperKernel ready to launch: what a Bazel `super_kernel` provides."""

    name: str
    library: str  # shared library holding <name>.o
    plan: dict  # the plan JSON (read through sk.engine.planfacts)
    meta: dict  # <name>.json (taskRation, blockDim)


@dataclasses.dataclass(frozen=True)
class Built:
    """Everything `sk run` launches. Bazel can construct it from prebuilt files (load_built)."""

    runtime: str  # the twin runtime shared library
    standalone: dict  # kernel key -> shared library with the ordinary entry
    scopes: dict  # scope name -> BuiltScope
    tiling: dict = dataclasses.field(default_factory=dict)  # tiling-sink kernel key -> its tiling function library


def build(m: model_mod.Model, build_dir: str, *, compiler: str, ld: str, objcopy: str, tsan: bool = False,
          runtime_dir: str | None = None, progress=None, warn=None, soc: str | None = None) -> Built:
    """Builds every kernel of `m` standalone and every scope fused, under build_dir.

    soc: the SoC the SuperKernels are generated for (`sk gen --soc`; its chip keys the sub-op JSONs'
    MIX code, as a toolchain's SoC does in Bazel); the twin runs either chip's code.
    runtime_dir: where the twin runtime is built (one runtime per process; share it across models).
    progress: called with one line per finished step ("built 4 standalone kernel(s)", ...).
    warn: called with each planner warning (what `sk gen` prints as "sk gen: warning: ...").
    """
    from sk.toolflow import subkernel
    from sk.twin import binding as twin

    os.makedirs(build_dir, exist_ok=True)
    runtime = str(twin.build_runtime(runtime_dir or os.path.join(build_dir, "runtime"), tsan=tsan))
    include = str(twin.INCLUDE_DIR)
    extra_flags = list(toolargv.TSAN_FLAGS) if tsan else []
    tools = toolargv.Tools("host", compiler=compiler)
    standalone = {}
    for key, k in sorted(m.kernels.items()):
        d = os.path.join(build_dir, "kernels", key)
        obj = os.path.join(d, "standalone.o")
        subkernel.compile_source(tools, k.src, obj, kt=kernel_types.lookup(k.kernel_type, f"kernel {key}"),
                                 block_dim=k.block_dim, options=None, include_dirs=[include, *k.include_dirs],
                                 extra=[*k.copts, *extra_flags], plain=True, tiling_keys=k.tiling_keys, entry=k.entry,
                                 cann=cann_instance(k))
        standalone[key] = _shared(compiler, [obj], os.path.join(d, f"{key}.so"), extra_flags)
    _say(progress, f"built {len(standalone)} standalone kernel(s)")
    tiling = {key: build_tiling_function(compiler, k, os.path.join(build_dir, "kernels", key, f"{key}_tiling.so"),
                                         extra_flags, linker=ld)
              for key, k in sorted(m.kernels.items()) if k.dynamic}
    scopes = {}
    for scope in m.scopes:
        # Under ThreadSanitizer the kernels also call into libtsan: its symbols may stay undefined too.
        runtimes = [runtime] + ([twin.tsan_runtime_library()] if tsan else [])
        scopes[scope.name] = _build_scope(m, scope, build_dir, compiler=compiler, ld=ld, objcopy=objcopy,
                                          include=include, extra_flags=extra_flags, runtime=runtimes, warn=warn,
                                          soc=soc)
        _say(progress, f"built SuperKernel {scope.name} ({len(scope.ops)} ops, "
                       f"{scopes[scope.name].meta.get('taskRation')})")
    return Built(runtime=runtime, standalone=standalone, scopes=scopes, tiling=tiling)


def cann_instance(k: model_mod.Kernel):
    """The CANN-style operator instance a kernel of the model is (None for an ordinary kernel)."""
    if not k.cann_kernel:
        return None
    from sk.toolflow.cannbuild import CannInstance
    from sk.twin.opsrc import staged_prelude

    return CannInstance(k.cann_kernel, k.binary_config or None, k.variant or "0", k.tpl_args, tuple(k.params),
                        staged_prelude(k.src, k.binary_config or None))


def build_tiling_function(compiler: str, k: model_mod.Kernel, out: str, extra_flags=(), linker: str | None = None) -> str:
    """A tiling-sink kernel's host tiling function (sk_tiling.h) as a shared library the twin calls."""
    from sk.toolflow.twinlib import tiling_function
    from sk.twin import binding as twin

    os.makedirs(os.path.dirname(out), exist_ok=True)
    return tiling_function(compiler, list(k.tiling_srcs), out, include_dir=str(twin.INCLUDE_DIR),
                           include_dirs=k.include_dirs, extra=extra_flags, linker=linker,
                           what=f"the tiling function {k.tiling_func} of kernel {k.key}")


def _say(progress, line: str) -> None:
    if progress:
        progress(line)


def scope_location(position: int, count: int) -> str:
    """GE's GetSubOpLoc: the first op of a scope is "start", the last "end", the rest "middle"."""
    return "start" if position == 0 else "end" if position == count - 1 else "middle"


def _shared(compiler: str, objects: list[str], out: str, extra_flags) -> str:
    from sk.toolflow.twinlib import link_shared

    return link_shared(toolargv.Tools("host", compiler=compiler), objects, out, extra_flags)


def op_tensors(op: model_mod.Op) -> dict:
    """kernel_infos `tensors` of an op (for sync-elision): its bound tensors; its workspace is
    a private buffer (Memory), named after the op so it never aliases another op's."""
    writes = [op.bind[p] for p in op.kernel.written if op.bind[p] is not None]  # None: an absent optional
    if op.kernel.workspace:
        writes.append(f"{op.name}.workspace")
    return {"reads": list(dict.fromkeys(op.bind[p] for p in op.kernel.inputs if op.bind[p] is not None)),
            "writes": list(dict.fromkeys(writes))}


def _build_scope(m, scope, build_dir, *, compiler, ld, objcopy, include, extra_flags, runtime: list,
                 warn, soc) -> BuiltScope:
    from sk.engine.platforms import get_platform
    from sk.toolflow import entry, link, subkernel
    from sk.render import outputs

    root = os.path.join(build_dir, "sk", scope.name)
    subs = os.path.join(root, "subs")
    compile_tools = toolargv.Tools("host", compiler=compiler)
    link_tools = toolargv.Tools("host", linker=ld, objcopy=objcopy, chip=get_platform(soc).chip)
    op_list, sub_objs, made = [], [], {}
    for pos, op_index in enumerate(scope.ops):
        op = m.ops[op_index]
        k = op.kernel
        loc = scope_location(pos, len(scope.ops))
        name = k.key  # kernel keys are unique in a model, entry names need not be: func = <key>_<loc>
        stem = f"{k.key}_{loc}"
        if stem not in made:
            d = os.path.join(subs, stem)
            kt = kernel_types.lookup(k.kernel_type, f"kernel {k.key}")
            # The same projection of the scope's options as Bazel's (sk/engine/inherited.py).
            common = dict(kt=kt, block_dim=k.block_dim, options=inherited.project(scope.options), op_type=k.op_type,
                          loc=loc)
            incs = [include, *k.include_dirs]
            kobj, wobj = os.path.join(d, "kernel.o"), os.path.join(d, "wrapper.o")
            scan = os.path.join(d, "kernel.sync.json")
            subkernel.compile_source(compile_tools, k.src, kobj, include_dirs=incs, extra=[*k.copts, *extra_flags],
                                     sync_out=scan, tiling_keys=k.tiling_keys, entry=k.entry, cann=cann_instance(k),
                                     **common)
            subkernel.wrap(compile_tools, entry=k.entry, name=name, params=list(k.params), kernel_obj=kobj, out=wobj,
                           include_dirs=incs, extra=extra_flags, sync_scan=scan, tiling_keys=k.tiling_keys, **common)
            subkernel.pack(link_tools, kernel_obj=kobj, wrapper_obj=wobj, entry=k.entry, name=name,
                           params=list(k.params), out_obj=os.path.join(d, f"{stem}.o"),
                           out_json=os.path.join(d, f"{stem}.json"), sync_scan=scan, tiling_keys=k.tiling_keys,
                           **common)
            made[stem] = d
        d = made[stem]
        op_list.append({"bin_path": os.path.relpath(os.path.join(d, f"{stem}.o"), root),
                        "json_path": os.path.relpath(os.path.join(d, f"{stem}.json"), root),
                        "stream_id": op.stream, "send_event_list": list(op.send_events),
                        "recv_event_list": list(op.recv_events),
                        "task_type": "dynamic" if k.dynamic else "normal", "tensors": op_tensors(op)})
        sub_objs.append(os.path.join(d, f"{stem}.o"))
    infos = os.path.join(root, "kernel_infos.json")
    write_text_atomic(infos, json.dumps({"kernel_name": scope.name, "op_list": op_list,
                                         "super_kernel_options": scope.options}, indent=2) + "\n")
    gen, plan_path = os.path.join(root, "gen"), os.path.join(root, "plan.json")
    outputs.generate(infos, gen, plan_path, soc=soc, warn=warn)
    entry_dir = os.path.join(root, "entry")
    os.makedirs(entry_dir, exist_ok=True)
    copts = os.path.join(gen, f"{scope.name}.compile_options.json")
    facts = planfacts.facts(planfacts.load(plan_path), where=plan_path)
    flags = entry.load_compile_options(copts) if os.path.exists(copts) else list(facts.compile_options)
    # With objcopy, each half is localised as Bazel's SkCompileEntry leaves it.
    entry.compile_entry(toolargv.Tools("host", compiler=compiler, objcopy=objcopy), facts,
                        src=os.path.join(gen, f"{scope.name}_kernel.cpp"), flags=flags, out_dir=entry_dir,
                        include_dirs=[include], extra=extra_flags)
    out_obj, out_json = os.path.join(root, f"{scope.name}.o"), os.path.join(root, f"{scope.name}.json")
    link.link_plan(link_tools, planfacts.load_link_facts(plan_path), entry_dirs=[entry_dir], entry_objs=[],
                   sub_objs=sub_objs, meta_in=os.path.join(gen, f"{scope.name}.json"), out_obj=out_obj,
                   out_json=out_json, runtime_libs=runtime)
    lib = _shared(compiler, [out_obj], os.path.join(root, f"{scope.name}.so"), extra_flags)
    with open(plan_path, encoding="utf-8") as f:
        plan = json.load(f)
    with open(out_json, encoding="utf-8") as f:
        meta = json.load(f)
    return BuiltScope(name=scope.name, library=lib, plan=plan, meta=meta)


# ---------------------------------------------------------------- running

class Memory:
    """GM buffers of every tensor, workspace and tiling blob of a model (tensors: name -> GmBuffer)."""

    def __init__(self, twin, m: model_mod.Model, seed: int):
        self.m, self.seed = m, seed
        self.tensors = {name: twin.alloc(max(1, t.nbytes), name) for name, t in sorted(m.tensors.items())}
        self.workspace = {op.index: twin.alloc(op.workspace_bytes, f"workspace of op {op.name}")
                          for op in m.ops if op.workspace_bytes}
        self.tiling = {op.index: twin.alloc(len(op.tiling), f"tiling of op {op.name}") for op in m.ops if op.tiling}
        self._sk_buffers: dict = {}

    def reset(self) -> None:
        """Every tensor to its initial contents, workspaces and SK buffers zeroed, tilings rewritten."""
        for name, t in self.m.tensors.items():
            self.tensors[name].write(t.initial_bytes(self.seed))
        for op in self.m.ops:
            if op.index in self.workspace:
                self.workspace[op.index].write(bytes(op.workspace_bytes))
            if op.index in self.tiling:
                self.tiling[op.index].write(op.tiling)
        for buf, size in self._sk_buffers.values():
            buf.write(bytes(size))

    def op_params(self, op: model_mod.Op) -> list[int]:
        """The addresses an op is launched with, in its kernel's parameter order."""
        # An absent optional parameter (bound to None) gets a null GM pointer, as the ADK passes it.
        out = [self.tensors[op.bind[p]].address if op.bind[p] is not None else 0 for p in op.kernel.tensor_params]
        if op.kernel.workspace:
            out.append(self.workspace[op.index].address if op.index in self.workspace else 0)
        if op.kernel.tiling:
            out.append(self.tiling[op.index].address)
        return out

    def sk_buffer(self, twin, key, size):
        """A zeroed buffer owned by a SuperKernel launch (its workspace, profiling area), made once per key."""
        if key not in self._sk_buffers:
            self._sk_buffers[key] = (twin.alloc(size, f"{key[1]} of SuperKernel {key[0]}"), size)
        return self._sk_buffers[key][0]

    def snapshot(self) -> dict:
        """name -> bytes of every tensor."""
        return {name: buf.read() for name, buf in self.tensors.items()}


@dataclasses.dataclass(frozen=True)
class HostTilingLaunch:
    """A tiling-sink op's own launch (unfused): its tiling function runs on the host first, on the
    memory as the launches before left it, and picks the entry (tiling key) and block dim (facts §15.4)."""

    name: str
    op: object  # model_mod.Op
    trace: bool


@dataclasses.dataclass(frozen=True)
class TaskLaunch:
    """A SuperKernel launch with the external tasks it talks to through GM words (facts §15.3)."""

    name: str
    spec: object   # binding.LaunchSpec
    words: tuple   # binding.TwinWord
    tasks: tuple   # binding.TwinTask


class Session:
    """One model on a loaded twin: its libraries, memory and launch specs.

    separate(trace) / fused(trace) -> (specs, kinds): the launches of each run
    and, per launch, its op_statistic (OP Type, Core Type); run(specs) resets
    the memory and runs them back to back.
    """

    def __init__(self, m: model_mod.Model, built: Built, seed: int):
        from sk.twin import binding as twin_mod

        self.m, self.built = m, built
        self.twin = twin_mod.Twin(built.runtime)
        self._libs = {key: self.twin.load_kernels(path) for key, path in built.standalone.items()}
        self._sk_libs = {name: self.twin.load_kernels(s.library) for name, s in built.scopes.items()}
        self._tiling = {}
        for key, path in sorted(built.tiling.items()):
            fn = m.kernels[key].tiling_func
            lib = self.twin.load_kernels(path)
            if not hasattr(lib, fn):
                raise SkError("the tiling library does not define the tiling function", where=f"kernel {key}",
                              value=fn, allowed='extern "C" int ' + fn + "(SkTilingContext* ctx) in its tiling_srcs")
            self._tiling[key] = self.twin.symbol(lib, fn)
        missing = sorted(k.key for k in m.kernels.values() if k.dynamic and k.key not in self._tiling)
        if missing:
            raise SkError("no tiling function library for these tiling-sink kernels", where="built", value=missing)
        self.memory = Memory(self.twin, m, seed)

    def op_launch(self, op: model_mod.Op, trace: bool, tiling: tuple | None = None):
        """The standalone launch of one op; a tiling-sink op's is a HostTilingLaunch until its tiling
        (key, block dim) is known."""
        from sk.twin import binding as twin_mod

        k = op.kernel
        if k.dynamic and tiling is None:
            return HostTilingLaunch(name=op.name, op=op, trace=trace)
        entry, block_dim = k.entry, k.block_dim
        if tiling is not None:
            entry, block_dim = f"{k.entry}_{tiling[0]}", tiling[1]
        return twin_mod.LaunchSpec(name=op.name, entry=self.twin.symbol(self._libs[k.key], entry),
                                   block_dim=block_dim, ration=kernel_types.TABLE[k.kernel_type].ration,
                                   params=self.memory.op_params(op), num_args=len(k.params), trace=trace)

    def tiling_call(self, op: model_mod.Op):
        """The call of op's tiling function on its inputs (device memory) and tiling buffer."""
        from sk.twin import binding as twin_mod

        k = op.kernel
        inputs = tuple((self.memory.tensors[op.bind[p]].address, self.m.tensors[op.bind[p]].nbytes)
                       for p in k.inputs)
        return twin_mod.TilingCall(function=self._tiling[k.key], label=f"tiling function {k.tiling_func} of {op.label}",
                                   inputs=inputs, tiling=self.memory.tiling[op.index].address,
                                   tiling_bytes=k.tiling_bytes, max_block_dim=k.block_dim, keys=k.tiling_keys)

    def _scope_tasks(self, scope: model_mod.Scope, spec, plan_slots: tuple):
        """The GM words of a scope's launch (each op's dynamic and event words, facts §15.2) and the tasks
        that talk to it; the words' addresses go into spec.params at their slots (plan_slots: param_slots)."""
        from sk.twin import binding as twin_mod

        words, index, notify_of = [], {}, {}
        slots = [s for s in plan_slots if s is not None and s.kind in ("dynamic", "notify", "wait") and not s.inner]
        if not slots:
            return spec
        count = len(slots)
        buf = self.memory.sk_buffer(self.twin, (scope.name, "words"), 64 * count)
        task_of = {t.op: t.name for t in self.m.tasks if t.kind == "tiling"}
        sender_task = {t.send_event: t.name for t in self.m.tasks if t.kind == "prefetch"}
        waiter = {t.wait_event: t.name for t in self.m.tasks if t.wait_event is not None}

        def word(slot, by_task, what, key):
            address = buf.address + 64 * len(words)
            spec.params[slot] = address
            index[key] = len(words)
            words.append(twin_mod.TwinWord(address=address, by_task=by_task, what=what))

        dynamic_words = {"wait_lock": ("lock", "__ac_wait_lock_{pos}, the tiling lock of {who}: its tiling task "
                                                "'{task}' writes 1 once it has written the tiling, tiling key and "
                                                "block dim"),
                         "tiling_key": ("key", "__ac_dynamic_tiling_key_{pos} of {who}, written by tiling task '{task}'"),
                         "block_num": ("blocks", "__ac_dynamic_block_num_{pos} of {who}, written by tiling task '{task}'")}
        seen: dict = {}
        for s in slots:
            pos = s.op
            op = self.m.ops[scope.ops[pos]]
            who = f"op {pos} ({op.name}) of {scope.name}"
            k = seen[(pos, s.kind)] = seen.get((pos, s.kind), -1) + 1  # the op's k-th word of this kind
            if s.kind == "dynamic":
                key, text = dynamic_words[s.name]
                word(s.index, True, text.format(pos=pos, who=who, task=task_of.get(op.index, "(none)")), (key, pos))
            elif s.kind == "notify":
                word(s.index, False, f"__ac_notify_lock_{pos}_{k} of {who}, event {s.name}: {op.name} writes 1 when "
                     f"it has run; task '{waiter.get(s.name, '(none)')}' waits for it", ("notify", s.name))
                notify_of[s.name] = index[("notify", s.name)]
            else:
                word(s.index, True, f"__ac_wait_lock_{pos}_{k} of {who}, event {s.name}: task "
                     f"'{sender_task.get(s.name, '(none)')}' writes 1 when it has run", ("wait", s.name))
        tasks = []
        for t in self.m.tasks:
            wait = notify_of.get(t.wait_event) if t.wait_event is not None else None
            if t.kind == "tiling" and t.op in scope.ops:
                pos = scope.ops.index(t.op)
                tasks.append(twin_mod.TwinTask(name=t.name, wait_word=wait, release_word=index[("lock", pos)],
                                               tiling=self.tiling_call(self.m.ops[t.op]), key_word=index[("key", pos)],
                                               block_word=index[("blocks", pos)]))
            elif t.kind == "prefetch" and ("wait", t.send_event) in index:
                tensor = self.m.tensors[t.tensor]
                tasks.append(twin_mod.TwinTask(name=t.name, wait_word=wait, release_word=index[("wait", t.send_event)],
                                               prefetch=(self.memory.tensors[t.tensor].address, tensor.nbytes)))
        return TaskLaunch(name=scope.name, spec=spec, words=tuple(words), tasks=tuple(tasks))

    def scope_launch(self, scope: model_mod.Scope, trace: bool):
        """The SuperKernel launch of one scope, its parameter array filled as the plan lays it out."""
        from sk.twin import binding as twin_mod

        built = self.built.scopes[scope.name]
        where = f"plan of {scope.name}"
        plan = planfacts.facts(built.plan, where=where)
        layout = planfacts.param_layout(built.plan, where=where)
        slots = planfacts.param_slots(built.plan, where=where)
        values = []
        for pos, offsets in enumerate(layout.op_offsets):
            op = self.m.ops[scope.ops[pos]]
            values.append(self.memory.op_params(op))
            if len(values[-1]) != len(offsets):
                raise SkError("the plan's parameter count differs from the model's", where=op.label,
                              value=len(offsets), allowed=f"the model gives {len(values[-1])} parameters")
        params = [0] * len(slots)
        for s in slots:  # the words the tasks talk through (dynamic, notify, wait) are _scope_tasks'
            if s is None or s.kind in ("ffts", "task_id", "dynamic", "notify", "wait"):
                continue
            if s.kind == "param":
                params[s.index] = values[s.op][s.name]
            elif s.kind == "workspace":
                params[s.index] = self.memory.sk_buffer(self.twin, (scope.name, "ws"),
                                                        max(layout.workspace_bytes, 64)).address
            elif s.kind == "profiling":
                params[s.index] = self.memory.sk_buffer(self.twin, (scope.name, "profiling_index"), 1 << 20).address
            else:
                raise SkError("the twin cannot fill a plan slot of this kind", where=f"{where}: slot {s.index}",
                              value=s.kind, allowed="param, workspace, profiling, ffts, task_id, dynamic, notify, wait")
        lib = self._sk_libs[scope.name]
        entries = {e.arch: self.twin.symbol(lib, e.symbol) for e in plan.entries}
        aic, aiv = (int(x) for x in plan.task_ration.split(":"))
        entry = entries.get("cube") if aic else entries.get("vec")
        spec = twin_mod.LaunchSpec(name=scope.name, entry=entry, entry_aiv=entries.get("vec") if aic and aiv else None,
                                   block_dim=plan.block_dim, ration=(aic, aiv), params=params, num_args=None,
                                   trace=trace)
        return self._scope_tasks(scope, spec, slots)

    def _op_kind(self, op) -> tuple[str, str]:
        return (op.kernel.op_type or op.kernel.key, kernel_types.TABLE[op.kernel.kernel_type].runtime_core_type)

    def separate(self, trace: bool) -> tuple[list, list]:
        """Every op as its own launch."""
        return [self.op_launch(op, trace) for op in self.m.ops], [self._op_kind(op) for op in self.m.ops]

    def fused(self, trace: bool) -> tuple[list, list]:
        """Each scope as one SuperKernel launch; ops outside scopes as their own launches."""
        specs, kinds, i = [], [], 0
        while i < len(self.m.ops):
            scope = self.m.scope_of(i)
            if scope is None:
                op = self.m.ops[i]
                specs.append(self.op_launch(op, trace))
                kinds.append(self._op_kind(op))
                i += 1
                continue
            specs.append(self.scope_launch(scope, trace))
            ration = planfacts.facts(self.built.scopes[scope.name].plan, where=f"plan of {scope.name}").task_ration
            kinds.append((SK_OP_TYPE, "MIX_AIV" if ration == "0:1" else "MIX_AIC"))
            i = scope.ops[-1] + 1
        return specs, kinds

    def run(self, specs, what: str = "") -> list:
        """Resets the memory, then runs `specs` back to back; the LaunchResults. A HostTilingLaunch runs its
        op's tiling function on the host first, a TaskLaunch its SuperKernel with its tasks. what: the run, for errors."""
        from sk.twin import binding as twin_mod

        self.memory.reset()
        results, batch = [], []
        specs = list(specs)
        for item in specs + [None]:
            if item is not None and not isinstance(item, (HostTilingLaunch, TaskLaunch)):
                batch.append(item)
                continue
            if batch:
                results += self.twin.run_sequence(batch, what=what, first=len(results), total=len(specs))
                batch = []
            if item is None:
                break
            launch = f"launch {len(results) + 1} of {len(specs)}"
            where = f"{what}, {launch}" if what else launch
            if isinstance(item, HostTilingLaunch):
                tiling = self.twin.run_tiling(self.tiling_call(item.op), where=where)
                result = self.twin.launch(self.op_launch(item.op, item.trace, tiling), check=False)
                if not result.ok:
                    raise twin_mod.TwinLaunchError(result, where)
                results.append(result)
            else:
                results.append(self.twin.launch_tasks(item.spec, item.words, item.tasks, where=where))
        return results


def op_statistic_rows(kinds: list[tuple[str, str]], results) -> list[tuple]:
    """op_statistic rows (OP Type, Core Type, Count, Total, Min, Avg, Max us, Ratio %), largest total first."""
    by = {}
    for (op_type, core), r in zip(kinds, results):
        by.setdefault((op_type, core), []).append(r.wall_ns / 1000.0)
    total = sum(sum(v) for v in by.values()) or 1.0
    rows = [(t, c, len(v), sum(v), min(v), statistics.fmean(v), max(v), 100.0 * sum(v) / total)
            for (t, c), v in by.items()]
    return sorted(rows, key=lambda r: (-r[3], r[0], r[1]))


def table(title: str, rows) -> str:
    """The Markdown op_statistic table `sk run` prints."""
    lines = [f"{title}", "| OP Type | Core Type | Count | Total Time(us) | Avg Time(us) |", "|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]:.2f} | {r[5]:.2f} |")
    lines.append(f"| Total | | {sum(r[2] for r in rows)} | {sum(r[3] for r in rows):.2f} | |")
    return "\n".join(lines)


def write_csv(path: str, rows) -> None:
    """op_statistic.csv in the profiler's columns."""
    out = [",".join(CSV_HEADER)]
    for r in rows:
        out.append(f"{r[0]},{r[1]},{r[2]},{r[3]:.3f},{r[4]:.3f},{r[5]:.3f},{r[6]:.3f},{r[7]:.2f}")
    write_text_atomic(path, "\n".join(out) + "\n")


@dataclasses.dataclass(frozen=True)
class Mismatch:
    tensor: str
    differing_bytes: int
    total_bytes: int


@dataclasses.dataclass(frozen=True)
class RunReport:
    """What execute() measured and found.

    rows_separate / rows_fused: op_statistic rows over all rounds;
    mismatches: tensors whose bytes differ between the runs (sorted by name);
    first_separate / first_fused: LaunchResults of the first (checked, traced) rounds;
    residual: "<launch>: <counters>" of SuperKernels that left flag counters set.
    """

    rounds: int
    rows_separate: list
    rows_fused: list
    output_tensors: int
    tensors: int
    mismatches: tuple
    residual: tuple
    first_separate: list
    first_fused: list
    # Tensors with `expected` that missed their reference (sk/twin/reference.py), separate run first.
    ref_mismatches: tuple = ()
    references: int = 0  # tensors with `expected`
    outputs_written: tuple = ()  # .npy files of the output tensors (--outputs-dir)

    @property
    def identical(self) -> bool:
        return not self.mismatches

    @property
    def passed(self) -> bool:
        """Both runs agree bit for bit and every reference is met."""
        return not self.mismatches and not self.ref_mismatches

    @property
    def total_separate_us(self) -> float:
        return sum(r[3] for r in self.rows_separate)

    @property
    def total_fused_us(self) -> float:
        return sum(r[3] for r in self.rows_fused)

    @property
    def benefit_percent(self) -> float:
        no, sk = self.total_separate_us, self.total_fused_us
        return 100.0 * (no - sk) / no if no else 0.0

    def lines(self) -> list[str]:
        """The report as `sk run` prints it."""
        rounds = self.rounds
        out = [table(f"no_sk_model ({rounds} round(s), CPU twin wall time)", self.rows_separate),
               table(f"sk_model ({rounds} round(s), CPU twin wall time)", self.rows_fused),
               f"no_sk_model Total Time: {self.total_separate_us:.2f} us; "
               f"sk_model Total Time: {self.total_fused_us:.2f} us",
               f"superkernel benefit: {self.benefit_percent:.2f}%"]
        if self.residual:
            out.append("note: " + "; ".join(self.residual))
        if self.mismatches:
            for mm in self.mismatches[:10]:
                out.append(f"MISMATCH {mm.tensor}: {mm.differing_bytes} of {mm.total_bytes} bytes differ between "
                           "separate and fused runs")
            out.append(f"outputs differ: {len(self.mismatches)} of {self.tensors} tensors")
        else:
            out.append(f"outputs identical: {self.output_tensors} output tensors ({self.tensors} tensors in all) "
                       "bit-exact between separate launches and SuperKernel launches")
        for mm in self.ref_mismatches[:20]:
            out.append(reference.line(mm))
        if self.references:
            bad = len({mm.tensor for mm in self.ref_mismatches})
            out.append(f"references: {self.references - bad} of {self.references} tensors match their expected "
                       "files in both runs" + (f"; {bad} do not" if bad else ""))
        if self.outputs_written:
            out.append(f"output tensors written as .npy to {os.path.dirname(os.path.dirname(self.outputs_written[0]))}"
                       " (fused/, separate/)")
        return out


def execute(m: model_mod.Model, built: Built, *, seed: int, repeat: int, outputs_dir: str | None = None) -> RunReport:
    """Runs `m` separately and fused (the first round checked and traced, `repeat` rounds timed).
    Tensors with `expected` are compared with it after both first rounds; outputs_dir receives
    <outputs_dir>/{separate,fused}/<tensor>.npy of every output tensor."""
    if repeat < 1:
        raise SkError("repeat must be at least 1", where="--repeat", value=repeat)
    session = Session(m, built, seed)
    specs, kinds_no_sk = session.separate(trace=True)
    first_no_sk = session.run(specs, "separate run")
    expected = session.memory.snapshot()
    specs, kinds_sk = session.fused(trace=True)
    first_sk = session.run(specs, "SuperKernel run")
    got = session.memory.snapshot()

    times_no_sk, times_sk = list(first_no_sk), list(first_sk)
    for _ in range(repeat - 1):
        times_no_sk += session.run(session.separate(False)[0])
        times_sk += session.run(session.fused(False)[0])
    mismatches = tuple(Mismatch(name, sum(1 for a, b in zip(expected[name], got[name]) if a != b), len(expected[name]))
                       for name in sorted(expected) if expected[name] != got[name])
    refs = tuple(reference.check(m, expected, "separate run") + reference.check(m, got, "fused run"))
    written = tuple(reference.write_outputs(m, {"separate": expected, "fused": got}, outputs_dir)) if outputs_dir else ()
    return RunReport(rounds=repeat, rows_separate=op_statistic_rows(kinds_no_sk * repeat, times_no_sk),
                     rows_fused=op_statistic_rows(kinds_sk * repeat, times_sk),
                     output_tensors=len(set(m.output_tensors())), tensors=len(expected), mismatches=mismatches,
                     residual=tuple(f"{r.name}: {r.residual}" for r in first_sk if r.residual),
                     first_separate=first_no_sk, first_fused=first_sk, ref_mismatches=refs,
                     references=sum(1 for tn in m.tensors.values() if tn.expected), outputs_written=written)


def profile_paths(prof_dir: str) -> list:
    """The files write_profile writes."""
    return [os.path.join(prof_dir, run, "op_statistic.csv") for run in ("no_sk_model", "sk_model")]


def write_profile(report: RunReport, prof_dir: str) -> None:
    """<prof_dir>/{no_sk_model,sk_model}/op_statistic.csv."""
    separate, fused = profile_paths(prof_dir)
    write_csv(separate, report.rows_separate)
    write_csv(fused, report.rows_fused)


def write_trace(report: RunReport, path: str) -> None:
    """A Chrome trace (Perfetto) of the first rounds of both runs."""
    from sk.twin import binding as twin_mod

    doc = twin_mod.chrome_trace(report.first_separate + report.first_fused,
                                [f"no_sk_model: {r.name}" for r in report.first_separate]
                                + [f"sk_model: {r.name}" for r in report.first_fused])
    write_text_atomic(path, json.dumps(doc) + "\n")


def find_tool(name: str, flag: str) -> str:
    """`name` on PATH, or an SkError naming `flag`."""
    path = shutil.which(name)
    if not path:
        raise SkError(f"{name} not found on PATH", where=flag, allowed=f"install it or pass {flag} PATH")
    return path


def load_built(manifest_path: str, m: model_mod.Model) -> Built:
    """A `Built` from prebuilt files (what the Bazel sk_model rule hands over).

    The manifest is JSON: {"runtime": lib, "standalone": {kernel: lib},
    "scopes": {scope: {"library": lib, "plan": plan.json, "meta": <name>.json}},
    "tiling": {tiling-sink kernel: its tiling function library}};
    relative paths are relative to the manifest's directory.
    """
    base = os.path.dirname(os.path.abspath(manifest_path))
    doc = _read_manifest(manifest_path)

    def path(p, where):
        full = p if os.path.isabs(p) else os.path.join(base, p)
        problem = infile.input_problem(full, limit=infile.OBJECT_LIMIT)
        if problem:  # a FIFO would block dlopen for ever
            raise SkError("prebuilt file missing" if not os.path.lexists(full) else f"prebuilt file {problem}",
                          where=where, value=p)
        return full

    def load_json(p, where):
        try:
            return jsonload.loads(infile.read_text(path(p, where)))
        except (OSError, ValueError) as err:
            raise SkError(f"cannot read the prebuilt file ({getattr(err, 'strerror', None) or err})", where=where,
                          value=p) from None

    standalone = {k: path(v, f"standalone.{k}") for k, v in sorted(doc.get("standalone", {}).items())}
    missing = sorted({op.kernel.key for op in m.ops} - set(standalone))
    if missing:
        raise SkError("the manifest has no standalone library for these kernels of the model", where=manifest_path,
                      value=missing, allowed="give every kernel of the model a standalone library")
    scopes = {}
    for scope in m.scopes:
        entry = doc.get("scopes", {}).get(scope.name)
        if entry is None:
            raise SkError("the manifest has no SuperKernel for this scope of the model", where=f"scopes.{scope.name}",
                          allowed=f"known: {sorted(doc.get('scopes', {}))}")
        where = f"scopes.{scope.name}.plan"
        plan = load_json(entry["plan"], where)
        meta = load_json(entry["meta"], f"scopes.{scope.name}.meta")
        names = planfacts.op_kernel_names(plan, where)
        if len(names) != len(scope.ops):
            raise SkError("the prebuilt SuperKernel fuses a different number of ops than the model's scope",
                          where=f"scopes.{scope.name}", value=len(names),
                          allowed=f"the scope lists {len(scope.ops)} ops")
        for pos, (planned, op_index) in enumerate(zip(names, scope.ops)):
            kernel = m.ops[op_index].kernel
            if planned not in (kernel.entry, kernel.key):
                raise SkError("the prebuilt SuperKernel's op differs from the model's",
                              where=f"scopes.{scope.name}.ops[{pos}]", value=planned,
                              allowed=f"the model has kernel '{kernel.key}' (entry '{kernel.entry}') there")
        scopes[scope.name] = BuiltScope(name=scope.name, library=path(entry["library"], f"scopes.{scope.name}.library"),
                                        plan=plan, meta=meta)
    tiling = {k: path(v, f"tiling.{k}") for k, v in sorted(doc.get("tiling", {}).items())}
    if "runtime" not in doc:
        raise SkError("the manifest names no twin runtime library", where=f"{manifest_path}: runtime",
                      allowed="the path of libskrt.so")
    return Built(runtime=path(doc["runtime"], "runtime"), standalone=standalone, scopes=scopes, tiling=tiling)


def load_model(manifest_path: str, model_path: str) -> model_mod.Model:
    """The model a prebuilt manifest runs: declared in BUILD (the manifest's `build` section) with
    `model_path` as its data file; or, from a manifest without one, `model_path` as a whole model."""
    doc = _read_manifest(manifest_path)
    if "build" not in doc:
        return model_mod.load(model_path, need_sources=False)
    return model_mod.from_build(doc["build"], os.path.dirname(os.path.abspath(manifest_path)), model_path)


def write_model(manifest_path: str, data_path: str, out_path: str) -> None:
    """`sk model`: the model an sk_model manifest declares (BUILD) with its data file, written as one
    self-contained model file that `sk run --model` reads outside Bazel."""
    doc = _read_manifest(manifest_path)
    if "build" not in doc:
        raise SkError("the manifest has no `build` section (the model BUILD declares)", where=manifest_path,
                      allowed="an sk_model manifest")
    with _manifest_shape(manifest_path):
        text = model_mod.self_contained(doc["build"], os.path.dirname(os.path.abspath(manifest_path)), data_path,
                                        out_path)
    write_text_atomic(out_path, text)


@contextlib.contextmanager
def _manifest_shape(manifest_path: str):
    """A field of the prebuilt manifest of a shape the checks do not foresee is refused naming the
    manifest, never an internal error (the sk_model rule writes it; a hand-edited one may hold anything)."""
    try:
        yield
    except (KeyError, TypeError, AttributeError, ValueError, IndexError) as err:
        raise SkError(f"the prebuilt manifest has a field of an unexpected shape ({type(err).__name__}: {err})",
                      where=manifest_path, allowed="the manifest the sk_model rule writes") from None


def _read_manifest(manifest_path: str) -> dict:
    """The prebuilt manifest, its fields type-checked (a path is a string, a table an object of them)."""
    try:
        doc = jsonload.loads(infile.read_text(manifest_path))
    except (OSError, ValueError) as err:
        raise SkError("cannot read the prebuilt manifest", where=manifest_path, allowed=str(err)) from None
    check = jsonload.check_fields
    check(doc, {"runtime": str, "standalone": dict, "scopes": dict, "tiling": dict, "build": dict}, manifest_path)
    for table in ("standalone", "tiling"):
        paths = doc.get(table, {})
        check(paths, {k: str for k in paths}, f"{manifest_path}: {table}")
    for name, entry in doc.get("scopes", {}).items():
        check(entry, {"library": str, "plan": str, "meta": str}, f"{manifest_path}: scopes.{name}",
              required=("library", "plan", "meta"))
    return doc


def run_model(model_path: str, *, seed: int, repeat: int, build_dir: str | None = None, compiler: str | None = None,
              ld: str | None = None, objcopy: str | None = None, tsan: bool = False, runtime_dir: str | None = None,
              built_manifest: str | None = None, progress=None, warn=None, outputs_dir: str | None = None) -> RunReport:
    """`sk run`: loads the model, builds it (or loads the prebuilt manifest), executes it.

    Tools default to g++, ld and objcopy on PATH; build_dir to a per-model temp directory.
    progress, warn: as for build().
    """
    if repeat < 1:
        raise SkError("repeat must be at least 1", where="--repeat", value=repeat)
    if built_manifest:
        with _manifest_shape(built_manifest):
            m = load_model(built_manifest, model_path)
            built = load_built(built_manifest, m)
        return execute(m, built, seed=seed, repeat=repeat, outputs_dir=outputs_dir)
    m = model_mod.load(model_path)
    build_dir = build_dir or os.path.join(tempfile.gettempdir(), f"sk-run-{m.name}")
    built = build(m, build_dir, compiler=compiler or find_tool("g++", "--compiler"), ld=ld or find_tool("ld", "--ld"),
                  objcopy=objcopy or find_tool("objcopy", "--objcopy"), tsan=tsan, runtime_dir=runtime_dir,
                  progress=progress, warn=warn)
    return execute(m, built, seed=seed, repeat=repeat, outputs_dir=outputs_dir)
