"""`sk run`: build a model's kernels, run them separately and fused on the CPU twin, compare.

Build (outside Bazel, into --build-dir; every step is the same sk command a
Bazel action runs, so the lead's `sk_model` rules can hand in the outputs
instead — see `Built`):
  * per kernel: `subkernel compile --plain` -> standalone object -> <key>.so
  * per SK scope and op: `subkernel compile` (SK mode, the scope's options,
    loc start/middle/end by position), `subkernel wrap`, `subkernel pack`;
    kernel_infos.json; `sk gen`; `entry compile`; `link`; <scope>.so
  * the twin runtime (sk.twin.binding.build_runtime)

Run: every tensor is filled from a seeded generator; (i) every op as its own
launch, (ii) ops of a scope as one SuperKernel launch (ops outside scopes stay
separate); every tensor is compared byte for byte. Then `--repeat` timed
rounds of each, an op_statistic table per run, the benefit, CSVs under
--prof-dir and a Chrome trace of the first (checked) rounds.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import os
import shutil
import statistics
import tempfile

from sk.twin import model as model_mod
from sk.engine import kernel_types, planfacts
from sk.build import subkernel
from sk.build import toolargv
from sk.base.errors import SkError
from sk.base.toolrun import run_tool, write_text_atomic

SK_OP_TYPE = "SuperKernel"
CSV_HEADER = ("OP Type", "Core Type", "Count", "Total Time(us)", "Min Time(us)", "Avg Time(us)", "Max Time(us)",
              "Ratio(%)")


@dataclasses.dataclass(frozen=True)
class BuiltScope:
    """A fused SuperKernel ready to launch: what a Bazel `super_kernel` provides."""

    name: str
    library: str  # shared library holding <name>.o
    plan: dict  # the plan JSON (params layout, entries)
    meta: dict  # <name>.json (taskRation, blockDim)


@dataclasses.dataclass(frozen=True)
class Built:
    """Everything `sk run` launches. Bazel can construct it from prebuilt files."""

    runtime: str  # the twin runtime shared library
    standalone: dict  # kernel key -> shared library with the ordinary entry
    scopes: dict  # scope name -> BuiltScope


def _sk(argv: list[str]) -> None:
    """Runs an sk command in-process; its SkError propagates unchanged."""
    from sk.cli import main as cli

    args = cli._parser().parse_args(argv)
    code = importlib.import_module(args._module).run(args)
    if code:
        raise SkError(f"sk {argv[0]} failed with status {code}", where=" ".join(argv[:2]))


def _loc(position: int, count: int) -> str:
    # GE's GetSubOpLoc: the first op is "start", the last "end", the rest "middle".
    return "start" if position == 0 else "end" if position == count - 1 else "middle"


def build(m: model_mod.Model, build_dir: str, *, compiler: str, ld: str, objcopy: str, tsan: bool = False,
          runtime_dir: str | None = None, log=print) -> Built:
    """runtime_dir: where the twin runtime is built (one runtime per process; share it across models)."""
    from sk.twin import binding as twin

    os.makedirs(build_dir, exist_ok=True)
    runtime = str(twin.build_runtime(runtime_dir or os.path.join(build_dir, "runtime"), tsan=tsan))
    include = str(twin.INCLUDE_DIR)
    extra_flags = ["-O1", "-fsanitize=thread"] if tsan else []
    tool = ["--toolchain", "host"]
    standalone = {}
    for key, k in sorted(m.kernels.items()):
        d = os.path.join(build_dir, "kernels", key)
        obj = os.path.join(d, "standalone.o")
        _sk(["subkernel", "compile", *tool, "--compiler", compiler, "--include", include,
             *[f"--include={i}" for i in k.include_dirs], "--kernel-type", k.kernel_type,
             "--block-dim", str(k.block_dim), "--plain", "-o", obj, k.src, "--", *k.copts, *extra_flags])
        standalone[key] = _shared(compiler, [obj], os.path.join(d, f"{key}.so"), extra_flags)
    log(f"built {len(standalone)} standalone kernel(s)")
    scopes = {}
    for scope in m.scopes:
        # Under ThreadSanitizer the kernels also call into libtsan: its symbols may stay undefined too.
        runtimes = [runtime] + ([twin.tsan_runtime_library()] if tsan else [])
        scopes[scope.name] = _build_scope(m, scope, build_dir, compiler=compiler, ld=ld, objcopy=objcopy,
                                          include=include, extra_flags=extra_flags, runtime=runtimes)
        log(f"built SuperKernel {scope.name} ({len(scope.ops)} ops, {scopes[scope.name].meta.get('taskRation')})")
    return Built(runtime=runtime, standalone=standalone, scopes=scopes)


def _shared(compiler: str, objects: list[str], out: str, extra_flags) -> str:
    # -Bsymbolic: kernel libraries are loaded RTLD_GLOBAL, and two standalone
    # kernels may both define `helper`; each must call its own.
    run_tool([compiler, "-shared", "-Wl,-Bsymbolic", *extra_flags, "-o", out, *objects],
             step="linking a twin shared library", where=out)
    return out


def _op_tensors(op) -> dict:
    """kernel_infos `tensors` of an op (for sync-elision): its bound tensors; its workspace is
    a private buffer (_Memory), named after the op so it never aliases another op's."""
    writes = [op.bind[p] for p in op.kernel.outputs]
    if op.kernel.workspace:
        writes.append(f"{op.name}.workspace")
    return {"reads": list(dict.fromkeys(op.bind[p] for p in op.kernel.inputs)), "writes": list(dict.fromkeys(writes))}


def _build_scope(m, scope, build_dir, *, compiler, ld, objcopy, include, extra_flags, runtime: list) -> BuiltScope:
    root = os.path.join(build_dir, "sk", scope.name)
    subs = os.path.join(root, "subs")
    op_list, sub_objs, made = [], [], {}
    for pos, op_index in enumerate(scope.ops):
        op = m.ops[op_index]
        k = op.kernel
        loc = _loc(pos, len(scope.ops))
        name = k.key  # kernel keys are unique in a model, entry names need not be: func = <key>_<loc>
        stem = f"{k.key}_{loc}"
        if stem not in made:
            d = os.path.join(subs, stem)
            common = ["--kernel-type", k.kernel_type, "--block-dim", str(k.block_dim), "--options", scope.options,
                      "--op-type", k.op_type, "--loc", loc]
            incs = ["--include", include, *[f"--include={i}" for i in k.include_dirs]]
            kobj, wobj = os.path.join(d, "kernel.o"), os.path.join(d, "wrapper.o")
            _sk(["subkernel", "compile", "--toolchain", "host", "--compiler", compiler, *incs, *common,
                 "-o", kobj, k.src, "--", *k.copts, *extra_flags])
            params = [a for p in k.params for a in ("--param", p)]
            _sk(["subkernel", "wrap", "--toolchain", "host", "--compiler", compiler, *incs, *common,
                 "--entry", k.entry, "--name", name, *params, "--kernel-obj", kobj, "-o", wobj, "--",
                 *extra_flags])
            _sk(["subkernel", "pack", "--toolchain", "host", "--ld", ld, "--objcopy", objcopy, *common,
                 "--entry", k.entry, "--name", name, *params, "--kernel-obj", kobj, "--wrapper-obj", wobj,
                 "--out-obj", os.path.join(d, f"{stem}.o"), "--out-json", os.path.join(d, f"{stem}.json")])
            made[stem] = d
        d = made[stem]
        op_list.append({"bin_path": os.path.relpath(os.path.join(d, f"{stem}.o"), root),
                        "json_path": os.path.relpath(os.path.join(d, f"{stem}.json"), root),
                        "stream_id": 0, "task_type": "normal", "tensors": _op_tensors(op)})
        sub_objs.append(os.path.join(d, f"{stem}.o"))
    infos = os.path.join(root, "kernel_infos.json")
    write_text_atomic(infos, json.dumps({"kernel_name": scope.name, "op_list": op_list,
                                         "super_kernel_options": scope.options}, indent=2) + "\n")
    gen, plan_path = os.path.join(root, "gen"), os.path.join(root, "plan.json")
    _sk(["gen", "--kernel-infos", infos, "--out-dir", gen, "--plan-out", plan_path])
    entry_dir = os.path.join(root, "entry")
    os.makedirs(entry_dir, exist_ok=True)
    copts = os.path.join(gen, f"{scope.name}.compile_options.json")
    _sk(["entry", "compile", "--toolchain", "host", "--compiler", compiler, "--objcopy", objcopy, "--include", include,
         "--plan", plan_path, "--src", os.path.join(gen, f"{scope.name}_kernel.cpp"),
         *(["--compile-options", copts] if os.path.exists(copts) else []), "--out-dir", entry_dir, "--",
         *extra_flags])
    out_obj, out_json = os.path.join(root, f"{scope.name}.o"), os.path.join(root, f"{scope.name}.json")
    _sk(["link", "--toolchain", "host", "--ld", ld, "--objcopy", objcopy, "--plan", plan_path,
         "--entry-dir", entry_dir, *[a for s in sub_objs for a in ("--sub-obj", s)],
         "--meta-in", os.path.join(gen, f"{scope.name}.json"), "--out-obj", out_obj, "--out-json", out_json,
         *[a for lib in runtime for a in ("--runtime-lib", lib)]])
    lib = _shared(compiler, [out_obj], os.path.join(root, f"{scope.name}.so"), extra_flags)
    with open(plan_path, encoding="utf-8") as f:
        plan = json.load(f)
    with open(out_json, encoding="utf-8") as f:
        meta = json.load(f)
    return BuiltScope(name=scope.name, library=lib, plan=plan, meta=meta)


# ---------------------------------------------------------------- running

class _Memory:
    """GM buffers of every tensor, workspace and tiling blob of a model."""

    def __init__(self, twin, m: model_mod.Model, seed: int):
        self.m, self.seed = m, seed
        self.tensors = {name: twin.alloc(max(1, t.nbytes)) for name, t in sorted(m.tensors.items())}
        self.workspace = {op.index: twin.alloc(op.workspace_bytes) for op in m.ops if op.workspace_bytes}
        self.tiling = {op.index: twin.alloc(len(op.tiling)) for op in m.ops if op.tiling}
        self.sk_buffers: dict = {}

    def reset(self) -> None:
        for name, t in self.m.tensors.items():
            self.tensors[name].write(t.initial_bytes(self.seed))
        for op in self.m.ops:
            if op.index in self.workspace:
                self.workspace[op.index].write(bytes(op.workspace_bytes))
            if op.index in self.tiling:
                self.tiling[op.index].write(op.tiling)
        for buf, size in self.sk_buffers.values():
            buf.write(bytes(size))

    def op_params(self, op) -> list[int]:
        out = [self.tensors[op.bind[p]].address for p in op.kernel.inputs + op.kernel.outputs]
        if op.kernel.workspace:
            out.append(self.workspace[op.index].address if op.index in self.workspace else 0)
        if op.kernel.tiling:
            out.append(self.tiling[op.index].address)
        return out

    def sk_buffer(self, twin, key, size):
        if key not in self.sk_buffers:
            self.sk_buffers[key] = (twin.alloc(size), size)
        return self.sk_buffers[key][0]

    def snapshot(self) -> dict:
        return {name: buf.read() for name, buf in self.tensors.items()}


def _op_spec(twin, libs, mem, op, trace):
    from sk.twin import binding as twin_mod

    k = op.kernel
    entry = twin.symbol(libs[k.key], k.entry)
    return twin_mod.LaunchSpec(name=op.name, entry=entry, block_dim=k.block_dim, ration=kernel_types.TABLE[k.kernel_type].ration,
                               params=mem.op_params(op), num_args=len(k.params), trace=trace)


def _sk_spec(twin, lib, built: BuiltScope, m, scope, mem, trace):
    from sk.twin import binding as twin_mod

    plan = planfacts.facts(built.plan, where=f"plan of {scope.name}")
    layout = built.plan["params"]
    # count covers the op params; the workspace/profiling/task-id slots may lie beyond it.
    extra_slots = [layout.get(k) for k in ("workspace_index", "profiling_index", "task_id_index")]
    params = [0] * max([int(layout["count"])] + [int(i) + 1 for i in extra_slots if i is not None])
    for op_plan in built.plan["ops"]:
        op = m.ops[scope.ops[op_plan["index"]]]
        values = mem.op_params(op)
        if len(values) != len(op_plan["params"]):
            raise SkError("the plan's parameter count differs from the model's", where=f"{op.label}",
                          value=len(op_plan["params"]), allowed=f"the model gives {len(values)} parameters")
        for p, value in zip(op_plan["params"], values):
            params[p["offset"]] = value
    if layout.get("workspace_index") is not None:
        size = int(layout.get("workspace_size") or 0) + (1 << 20 if layout.get("dump") else 0)
        params[layout["workspace_index"]] = mem.sk_buffer(twin, (scope.name, "ws"), max(size, 64)).address
    for key in ("profiling_index",):
        if layout.get(key) is not None:
            params[layout[key]] = mem.sk_buffer(twin, (scope.name, key), 1 << 20).address
    entries = {e.arch: twin.symbol(lib, e.symbol) for e in plan.entries}
    aic, aiv = (int(x) for x in plan.task_ration.split(":"))
    entry = entries.get("cube") if aic else entries.get("vec")
    return twin_mod.LaunchSpec(name=scope.name, entry=entry, entry_aiv=entries.get("vec") if aic and aiv else None,
                               block_dim=plan.block_dim, ration=(aic, aiv), params=params, num_args=None,
                               trace=trace)


def _rows(kinds: list[tuple[str, str]], results) -> list[tuple]:
    by = {}
    for (op_type, core), r in zip(kinds, results):
        by.setdefault((op_type, core), []).append(r.wall_ns / 1000.0)
    total = sum(sum(v) for v in by.values()) or 1.0
    rows = [(t, c, len(v), sum(v), min(v), statistics.fmean(v), max(v), 100.0 * sum(v) / total)
            for (t, c), v in by.items()]
    return sorted(rows, key=lambda r: (-r[3], r[0], r[1]))


def _table(title: str, rows) -> str:
    lines = [f"{title}", "| OP Type | Core Type | Count | Total Time(us) | Avg Time(us) |", "|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]:.2f} | {r[5]:.2f} |")
    lines.append(f"| Total | | {sum(r[2] for r in rows)} | {sum(r[3] for r in rows):.2f} | |")
    return "\n".join(lines)


def _csv(path: str, rows) -> None:
    out = [",".join(CSV_HEADER)]
    for r in rows:
        out.append(f"{r[0]},{r[1]},{r[2]},{r[3]:.3f},{r[4]:.3f},{r[5]:.3f},{r[6]:.3f},{r[7]:.2f}")
    write_text_atomic(path, "\n".join(out) + "\n")


def execute(m: model_mod.Model, built: Built, *, seed: int, repeat: int, prof_dir: str | None,
            trace_path: str | None, log=print) -> int:
    from sk.twin import binding as twin_mod

    twin = twin_mod.Twin(built.runtime)
    libs = {key: twin.load_kernels(path) for key, path in built.standalone.items()}
    sk_libs = {name: twin.load_kernels(s.library) for name, s in built.scopes.items()}
    mem = _Memory(twin, m, seed)

    def separate(trace):
        specs = [_op_spec(twin, libs, mem, op, trace) for op in m.ops]
        kinds = [(op.kernel.op_type or op.kernel.key, kernel_types.TABLE[op.kernel.kernel_type].runtime_core_type) for op in m.ops]
        return specs, kinds

    def fused(trace):
        specs, kinds, i = [], [], 0
        while i < len(m.ops):
            scope = m.scope_of(i)
            if scope is None:
                op = m.ops[i]
                specs.append(_op_spec(twin, libs, mem, op, trace))
                kinds.append((op.kernel.op_type or op.kernel.key, kernel_types.TABLE[op.kernel.kernel_type].runtime_core_type))
                i += 1
                continue
            b = built.scopes[scope.name]
            specs.append(_sk_spec(twin, sk_libs[scope.name], b, m, scope, mem, trace))
            kinds.append((SK_OP_TYPE, "MIX_AIV" if b.plan["task_ration"] == "0:1" else "MIX_AIC"))
            i = scope.ops[-1] + 1
        return specs, kinds

    mem.reset()
    specs, kinds_no_sk = separate(trace=True)
    first_no_sk = twin.run_sequence(specs)
    expected = mem.snapshot()
    mem.reset()
    specs, kinds_sk = fused(trace=True)
    first_sk = twin.run_sequence(specs)
    got = mem.snapshot()

    outputs = set(m.output_tensors())
    bad = [name for name in sorted(expected) if expected[name] != got[name]]
    times_no_sk, times_sk = list(first_no_sk), list(first_sk)
    for _ in range(max(0, repeat - 1)):
        mem.reset()
        times_no_sk += twin.run_sequence(separate(False)[0])
        mem.reset()
        times_sk += twin.run_sequence(fused(False)[0])
    rounds = max(1, repeat)
    rows_no = _rows(kinds_no_sk * rounds, times_no_sk)
    rows_sk = _rows(kinds_sk * rounds, times_sk)
    total_no, total_sk = sum(r[3] for r in rows_no), sum(r[3] for r in rows_sk)
    log(_table(f"no_sk_model ({rounds} round(s), CPU twin wall time)", rows_no))
    log(_table(f"sk_model ({rounds} round(s), CPU twin wall time)", rows_sk))
    log(f"no_sk_model Total Time: {total_no:.2f} us; sk_model Total Time: {total_sk:.2f} us")
    log(f"superkernel benefit: {100.0 * (total_no - total_sk) / total_no if total_no else 0.0:.2f}%")
    if prof_dir:
        _csv(os.path.join(prof_dir, "no_sk_model", "op_statistic.csv"), rows_no)
        _csv(os.path.join(prof_dir, "sk_model", "op_statistic.csv"), rows_sk)
    if trace_path:
        doc = twin_mod.chrome_trace(first_no_sk + first_sk,
                                    [f"no_sk_model: {r.name}" for r in first_no_sk]
                                    + [f"sk_model: {r.name}" for r in first_sk])
        write_text_atomic(trace_path, json.dumps(doc) + "\n")
    residual = [f"{r.name}: {r.residual}" for r in first_sk if r.residual]
    if residual:
        log("note: flag counters left set at the end of: " + "; ".join(residual))
    if bad:
        for name in bad[:10]:
            diff = sum(1 for a, b in zip(expected[name], got[name]) if a != b)
            log(f"MISMATCH {name}: {diff} of {len(expected[name])} bytes differ between separate and fused runs")
        log(f"outputs differ: {len(bad)} of {len(expected)} tensors")
        return 1
    log(f"outputs identical: {len(outputs)} output tensors ({len(expected)} tensors in all) bit-exact "
        "between separate launches and SuperKernel launches")
    return 0


def find_tool(name: str, flag: str) -> str:
    path = shutil.which(name)
    if not path:
        raise SkError(f"{name} not found on PATH", where=flag, allowed=f"install it or pass {flag} PATH")
    return path


def load_built(manifest_path: str, m: model_mod.Model) -> Built:
    """A `Built` from prebuilt files (what the Bazel sk_model rule hands over).

    The manifest is JSON: {"runtime": lib, "standalone": {kernel: lib},
    "scopes": {scope: {"library": lib, "plan": plan.json, "meta": <name>.json}}};
    relative paths are relative to the manifest's directory.
    """
    base = os.path.dirname(os.path.abspath(manifest_path))
    try:
        with open(manifest_path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, json.JSONDecodeError) as err:
        raise SkError("cannot read the prebuilt manifest", where=manifest_path, allowed=str(err))

    def path(p, where):
        full = p if os.path.isabs(p) else os.path.join(base, p)
        if not os.path.exists(full):
            raise SkError("prebuilt file missing", where=where, value=p)
        return full

    def load_json(p, where):
        with open(path(p, where), encoding="utf-8") as f:
            return json.load(f)

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
        plan = load_json(entry["plan"], f"scopes.{scope.name}.plan")
        meta = load_json(entry["meta"], f"scopes.{scope.name}.meta")
        if len(plan.get("ops", [])) != len(scope.ops):
            raise SkError("the prebuilt SuperKernel fuses a different number of ops than the model's scope",
                          where=f"scopes.{scope.name}", value=len(plan.get("ops", [])),
                          allowed=f"the scope lists {len(scope.ops)} ops")
        for pos, (planned, op_index) in enumerate(zip(plan["ops"], scope.ops)):
            kernel = m.ops[op_index].kernel
            if planned.get("kernel_name") not in (kernel.entry, kernel.key):
                raise SkError("the prebuilt SuperKernel's op differs from the model's", where=f"scopes.{scope.name}.ops[{pos}]",
                              value=planned.get("kernel_name"), allowed=f"the model has kernel '{kernel.key}' (entry '{kernel.entry}') there")
        scopes[scope.name] = BuiltScope(name=scope.name, library=path(entry["library"], f"scopes.{scope.name}.library"),
                                        plan=plan, meta=meta)
    return Built(runtime=path(doc["runtime"], "runtime"), standalone=standalone, scopes=scopes)


def run_model(model_path: str, *, build_dir: str | None, seed: int, repeat: int, prof_dir: str | None,
              trace: str | None, compiler: str | None = None, ld: str | None = None, objcopy: str | None = None,
              tsan: bool = False, runtime_dir: str | None = None, built_manifest: str | None = None,
              log=print) -> int:
    m = model_mod.load(model_path, need_sources=not built_manifest)
    if repeat < 1:
        raise SkError("repeat must be at least 1", where="--repeat", value=repeat)
    if built_manifest:
        return execute(m, load_built(built_manifest, m), seed=seed, repeat=repeat, prof_dir=prof_dir,
                       trace_path=trace, log=log)
    build_dir = build_dir or os.path.join(tempfile.gettempdir(), f"sk-run-{m.name}")
    built = build(m, build_dir, compiler=compiler or find_tool("g++", "--compiler"), ld=ld or find_tool("ld", "--ld"),
                  objcopy=objcopy or find_tool("objcopy", "--objcopy"), tsan=tsan, runtime_dir=runtime_dir,
                  log=log)
    return execute(m, built, seed=seed, repeat=repeat, prof_dir=prof_dir, trace_path=trace, log=log)
