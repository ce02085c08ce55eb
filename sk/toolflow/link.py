"""Linking a SuperKernel: entry object(s) + sub-kernel objects -> `<name>.o`.

Steps (facts §6.5-6.9), one process per step and no pass over the symbols
that is worse than linear, because a benchmark fuses 1,200 sub-kernels:

1. Each entry object (the cube and vector halves of a MIX SuperKernel) gets
   every global except its entry symbol localised and its COMDAT groups
   dissolved (one objcopy each): both halves are compiled from one source
   with different macros, so their inline functions must not be merged.
   Sub-kernel objects were localised by `sk subkernel pack` already.
2. `ld -r` of all objects in the plan's link order (upstream's
   PerCubeHerVecWithSuper: [sk_mix_aic, cube subs, sk_mix_aiv, vec subs]),
   duplicates dropped keeping the first (order-preserving dedupe).
3. CANN only: upstream's final placed link (`ld.lld -Ttext=0 -q`).
4. One objcopy localises everything but the SK entry symbol(s)
   (`--localize-symbols=FILE`; the sub-kernel functions and split copies).
5. Verification with the symbol table: the defined globals are exactly the
   entry symbols, and nothing is undefined except what the runtime provides.
6. `<name>.o` and `<name>.json` (the engine's meta with `sha256` filled) are
   written atomically: a failure leaves neither and never replaces a good one.
"""

from __future__ import annotations

import json
import mmap
import os
import re
from collections import namedtuple

from sk.base import infile, jsonload, jsontext
from sk.binfmt import objfacts
from sk.toolflow import entrysplit, toolargv
from sk.base.errors import SkError
from sk.toolflow.linkprep import (ArchiveCache, Background, EarlyLink, LinkInput, dedupe, layout, make_localizable,
                              start_link, write_inputs, write_symbol_list)
from sk.toolflow.linkprep import relocatable_link_argv as _ld_argv
from sk.base.toolrun import publish, run_tool, scratch_dir, stage, stage_file, start_tool

# Symbols any host object may leave undefined: the C library and compiler
# support code the twin's shared library resolves (memcpy for struct copies,
# stack protector, thread-local access, static-local guards, unwinding).
HOST_ALWAYS_ALLOWED = frozenset({
    "_GLOBAL_OFFSET_TABLE_", "__dso_handle", "__tls_get_addr", "__stack_chk_fail",
    "memcpy", "memmove", "memset", "memcmp", "abort",
    "__cxa_guard_acquire", "__cxa_guard_release", "__cxa_guard_abort", "__cxa_atexit",
    "__cxa_pure_virtual", "__gxx_personality_v0", "_Unwind_Resume",
    "__assert_fail", "printf", "fprintf", "puts", "stderr",
    # The C++ heap: the twin's own API headers hold per-row scratch in std::vector (SoftMax, Sum, ...).
    "_Znwm", "_Znam", "_ZdlPv", "_ZdlPvm", "_ZdaPv", "_ZdaPvm", "_ZSt17__throw_bad_allocv",
    "_ZSt20__throw_length_errorPKc", "_ZSt28__throw_bad_array_new_lengthv",
}) | frozenset(
    # The C math library: device code calls scalar sqrt/exp/... (`1 / sqrt(mean + eps)` in CANN's
    # norms), which the device compiler provides and the twin's process has from libm.
    f"{name}{suffix}" for name in ("sqrt", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "pow",
                                   "fabs", "floor", "ceil", "round", "trunc", "rint", "nearbyint", "fmod",
                                   "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh",
                                   "erf", "erfc", "cbrt", "hypot", "fmax", "fmin", "lround", "llround")
    for suffix in ("", "f"))

# Tuples, not dataclasses: importing dataclasses alone took 10 ms of `sk link`.
LinkResult = namedtuple("LinkResult", "sha256 defined_globals undefined input_count")


def link(tools: toolargv.Tools, inputs: list[LinkInput], *, entry_symbols: list[str], out_obj: str,
         out_json: str | None = None, meta: dict | None = None, allowed_undefined=frozenset(),
         allow_prefixes: tuple[str, ...] = ()) -> LinkResult:
    """Links `inputs` in order into out_obj; writes out_json = meta + sha256."""
    with scratch_dir(out_obj) as work:
        return _link(tools, inputs, ArchiveCache(), work, _gnu_ld_probe(tools), None, entry_symbols=entry_symbols,
                     out_obj=out_obj, out_json=out_json, meta=meta, allowed_undefined=allowed_undefined,
                     allow_prefixes=allow_prefixes)


def _link(tools, inputs, cache, work, gnu_ld, early, *, entry_symbols, out_obj, out_json, meta, allowed_undefined,
          allow_prefixes) -> LinkResult:
    """The link in the scratch directory `work`; early: an EarlyLink that holds, whose inputs these are."""
    expected = sorted(set(entry_symbols))
    keep = set(expected) | {entrysplit.RUN_CFG}  # upstream's final object keeps both global
    if early:
        plan, ld = early.layout, early
    else:
        inputs = dedupe(inputs)
        if not inputs:
            raise SkError("nothing to link", where="--plan", allowed="the plan's link order lists no objects")
        plan = layout(tools, inputs, cache, work, gnu_ld)
        write_inputs(plan, cache)
        ld = start_link(plan, out_obj)
    paths = plan.paths
    merged = os.path.join(work, "merged.o")  # the layout's ld -r output
    # ld -r takes most of the time on one core: what does not depend on its output (the
    # localise list, the JSON text around the digest) is made meanwhile on the other.
    try:  # ld's output, if it has much, waits in its pipe meanwhile
        # Fast path: every sub object names the one function it exports (the
        # plan's link order), so the list to localise is known without reading
        # the merged object. Objects with other globals (prebuilt) make the
        # check below fail; then the merged symbol table decides.
        known = [item.symbol for item in inputs if not item.entry_symbol]
        if all(known):
            names = set(known) - keep
            localize = write_symbol_list(os.path.join(work, "localize.txt"), names)
        json_head, json_tail = _meta_text_around_sha256(meta) if out_json else ("", "")
        import hashlib  # noqa: F401 - loads OpenSSL (3 ms) for the digest while ld runs
    except BaseException:
        ld.stop()
        raise
    ld.wait()
    final_argv = toolargv.final_link_argv(tools, merged, os.path.join(work, "placed.o"))
    if final_argv:
        run_tool(final_argv, step="placing the SuperKernel (final link)", where=out_obj)
        merged = final_argv[-2]
    if not all(known):
        data = make_localizable(merged, out_obj)  # prebuilt objects may hold unique symbols
        names = {s.name for s in objfacts.read_object(merged, data=data).defined_globals()} - keep
        localize = write_symbol_list(os.path.join(work, "localize.txt"), names)
    # The twin links several SuperKernels into one program (the launch API), where each one's
    # g_opSystemRunCfg (one per device binary) would collide: there the definitions are weak.
    weaken = (entrysplit.RUN_CFG,) if tools.flavor == toolargv.HOST else ()
    # The object and its JSON appear together (toolrun.publish, the JSON last): the JSON's sha256
    # never stands beside another object.
    with scratch_dir(out_obj) as staging:
        tmp = os.path.join(staging, "out.o")
        run_tool(toolargv.localize_argv(tools, merged, tmp, symbols_file=localize, strip_groups=False,
                                        weaken=weaken),
                 step="localising the SuperKernel's symbols", where=out_obj)
        data = _read_mapped(tmp)
        # The digest (OpenSSL, outside the interpreter lock) overlaps reading the symbols.
        digest = Background(_sha256_hex, data)
        try:
            info = objfacts.read_object(tmp, data=data)
            exported = {s.name for s in info.defined_globals()}
            if exported - keep and all(known):
                localize = write_symbol_list(os.path.join(work, "localize-all.txt"), (names | exported) - keep)
                digest.join()
                data.close()  # objcopy rewrites the file under the mapping
                run_tool(toolargv.localize_argv(tools, merged, tmp, symbols_file=localize,
                                                strip_groups=False, weaken=weaken),
                         step="localising the SuperKernel's symbols", where=out_obj)
                data = _read_mapped(tmp)
                digest = Background(_sha256_hex, data)
                info = objfacts.read_object(tmp, data=data)
            result = _verify(info, out_obj, expected, inputs, paths, cache, allowed_undefined, allow_prefixes,
                             tools.flavor)
            # The scratch files (the 15 MB ld output above all) go while the digest is computed.
            for name in os.listdir(work):
                os.unlink(os.path.join(work, name))
            digest = digest.result()
        finally:
            if isinstance(digest, Background):
                digest.join()  # before the mapping it reads goes
            data.close()
        staged = [stage_file(out_obj, tmp)]
        try:
            if out_json:
                staged.append(stage(out_json, json_head + json.dumps(digest) + json_tail))
            publish(staged)
        except OSError as err:
            for s in staged:
                s.discard()
            option = "--out-json" if out_json and err.filename == out_json else "--out-obj"
            raise SkError(f"cannot write output ({err.strerror})", where=option, value=err.filename) from None
    return LinkResult(sha256=digest, defined_globals=tuple(result[0]), undefined=tuple(result[1]),
                      input_count=len(inputs))


def _meta_text_around_sha256(meta: dict | None) -> tuple[str, str]:
    """(head, tail): `jsontext.dumps(doc, indent=2) + "\n"` of meta with "sha256" set is head + the digest's
    JSON string + tail.

    The JSON of 1,200 sub-kernels takes 15 ms to write: made while ld runs,
    before the digest is known. The entries before and after "sha256" (in
    place if meta has it, else last) are written as dicts of their own; a
    dict's text is its entries' texts joined, so the pieces are the whole's.
    """
    doc = dict(meta or {})
    keys = list(doc)
    at = keys.index("sha256") if "sha256" in doc else len(keys)
    before, after = ({k: doc[k] for k in part} for part in (keys[:at], keys[at + 1:]))
    head = "{\n" + (jsontext.dumps(before, indent=2)[2:-2] + ",\n" if before else "") + '  "sha256": '
    tail = ((",\n" + jsontext.dumps(after, indent=2)[2:-2]) if after else "") + "\n}\n"
    return head, tail


def _sha256_hex(data) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()


def _read_mapped(path: str):
    """The file's bytes, memory-mapped (close() when done): the 15 MB SuperKernel is read and hashed without
    a copy."""
    with open(path, "rb") as f:
        if not os.fstat(f.fileno()).st_size:  # mmap cannot map an empty file
            return _Closable()
        return mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)


class _Closable(bytes):
    def close(self) -> None:
        pass


def relocatable_link_argv(tools: toolargv.Tools, link_args, out: str) -> list[str]:
    """The `ld -r` argv `sk link` runs, flags and all, over other inputs (a baseline to compare with)."""
    return _ld_argv(tools, link_args, out, _gnu_ld_probe(tools))


def _is_gnu_ld(tools) -> bool:
    """The host linker is GNU ld (BFD), which takes --hash-size (gold and lld do not)."""
    return _gnu_ld_probe(tools)()


def _gnu_ld_probe(tools):
    """Starts `ld --version`; returns a function that waits for it and answers _is_gnu_ld (once, then cached)."""
    if tools.flavor != toolargv.HOST or not tools.linker:
        return lambda: False  # without a linker the link itself reports it
    try:
        probe = start_tool([tools.linker, "--version"], step="probing the linker", where="--ld")
    except (OSError, SkError):
        return lambda: False  # the link itself reports a missing or broken linker
    answer = []

    def is_gnu_ld() -> bool:
        if not answer:
            try:
                answer.append(probe.wait().startswith("GNU ld "))
            except SkError:
                answer.append(False)
        return answer[0]

    return is_gnu_ld


def _verify(info, out_obj, expected, inputs, paths, cache, allowed_undefined, allow_prefixes, flavor):
    defined = sorted({s.name for s in info.defined_globals()})
    if [s for s in defined if s != entrysplit.RUN_CFG] != expected:
        extra = [s for s in defined if s not in expected and s != entrysplit.RUN_CFG]
        raise SkError("the linked SuperKernel exports other global symbols than its entry",
                      where=f"{out_obj}: {', '.join(extra[:10]) or 'missing ' + ', '.join(expected)}",
                      allowed=f"exactly {expected} (and {entrysplit.RUN_CFG}) may stay global; "
                              "this objcopy did not localise the rest")
    allowed = set(allowed_undefined) | (HOST_ALWAYS_ALLOWED if flavor == toolargv.HOST else set())
    undefined = sorted({s.name for s in info.undefined()})
    bad = [s for s in undefined if s not in allowed and not s.startswith(allow_prefixes)]
    if bad:
        sym = bad[0]
        users = []
        for item, p in zip(inputs, paths):
            data = cache.get(item) if p == item.path and item.member else None
            if any(u.name == sym for u in objfacts.read_object(p, data=data).undefined()):
                users.append(item.label)
        # The symbol first and each sub-kernel once: a message cut for length must still name them.
        users = list(dict.fromkeys(os.path.basename(u.split("(")[0]) for u in users))
        raise SkError(f"the linked SuperKernel references a symbol nothing defines: {sym}",
                      where=", ".join(users[:3]) + (f" and {len(users) - 3} more" if len(users) > 3 else "")
                      if users else out_obj,
                      value=bad[:10] if len(bad) > 1 else None,
                      allowed="a sub-kernel may only call functions it defines itself or the runtime provides; "
                              "link the missing code into the sub-kernel's source")
    return defined, undefined


# The twin runtime's interface as kernel_operator.h declares it: the kernel
# hooks and the per-worker SuperKernel globals the runtime defines once.
HOST_RUNTIME_PREFIXES = ("sk_twin_", "g_super_kernel_", "g_superKernelAutoSyncAll", "g_opSystemRunCfg",
                         "_ZN7AscendC", "_ZTH", "_ZTW")


def link_plan(tools: toolargv.Tools, plan, *, entry_dirs=(), entry_objs, sub_objs, meta_in: str,
              out_obj: str, out_json: str, runtime_libs=(), allow_undefined=(), early: bool = True) -> LinkResult:
    """`sk link`: resolves the plan's link order to files and links them.

    early: start ld -r before the archives are checked (EarlyLink): the
    archives' member names, the SuperKernel JSON and the runtime libraries
    are read while it runs. The result and every error are the same either way.
    """
    if plan.op_count and len(sub_objs) != plan.op_count:
        raise SkError(f"the plan has {plan.op_count} ops but {len(sub_objs)} --sub-obj were given", where="--sub-obj",
                      allowed="pass one sub-op archive per op, in op order")
    entries = {}
    for path in entry_objs:
        entries[os.path.basename(path)] = path
    found = {}
    for entry_dir in entry_dirs:
        try:
            units = sorted(os.listdir(entry_dir))
        except OSError as err:
            raise SkError("cannot read the entry directory", where="--entry-dir", value=f"{entry_dir}: {err.strerror}",
                          allowed="pass the directory `sk entry compile --out-dir` wrote") from None
        for unit_name in units:
            path = os.path.join(entry_dir, unit_name)
            if unit_name in found:
                raise SkError("two entry directories hold the same half", where="--entry-dir",
                              value=f"{found[unit_name]} and {path}",
                              allowed="pass each half once (one `sk entry compile --arch` output per side)")
            found[unit_name] = path
            entries.setdefault(unit_name, path)
    cache = ArchiveCache()
    with scratch_dir(out_obj) as work:
        gnu_ld = _gnu_ld_probe(tools)  # `ld --version` runs while the inputs are prepared
        started = None
        try:
            if early:
                try:
                    assumed = _plan_inputs(plan, entries, sub_objs, lambda path: True)
                except SkError:
                    pass  # raised again below, in its place among the checks
                else:
                    started = EarlyLink.start(tools, assumed, cache, work, gnu_ld, out_obj)
            if started and started.holds(cache):  # the archives' headers are read here, while ld runs
                inputs = started.inputs
            else:
                started = None  # stopped
                inputs = _plan_inputs(plan, entries, sub_objs, cache.is_archive)
            try:
                meta = jsonload.loads(infile.read_text(meta_in))
            except (OSError, ValueError) as err:
                raise SkError(f"cannot read the SuperKernel JSON ({err})", where="--meta-in", value=meta_in) from None
            if not isinstance(meta, dict):
                raise SkError("the SuperKernel JSON is not a JSON object", where="--meta-in", value=meta_in,
                              allowed="pass the <name>.json written by `sk gen`")
            allowed = set(allow_undefined)
            for lib in runtime_libs:
                allowed |= objfacts.provided_symbols(lib)
            prefixes = HOST_RUNTIME_PREFIXES if tools.flavor == toolargv.HOST else ()
            return _link(tools, inputs, cache, work, gnu_ld, started, entry_symbols=list(plan.entry_symbols),
                         out_obj=out_obj, out_json=out_json, meta=meta, allowed_undefined=frozenset(allowed),
                         allow_prefixes=prefixes)
        finally:
            if started:
                started.stop()  # killed if the link failed; else long done


def _plan_inputs(plan, entries: dict[str, str], sub_objs, is_archive) -> list[LinkInput]:
    """The link order as inputs; is_archive(path) tells a sub-kernel archive from a plain object."""
    inputs, count = [], len(sub_objs)
    new, append = tuple.__new__, inputs.append  # 4,800 items: no lookups
    split = plan.split_mode if plan.split_mode and plan.split_mode > 1 else 1
    half_index = {e.object_name: i for i, e in enumerate(plan.entries)}
    copies = {}  # (op, copy's object name) -> its index in inputs
    for item in plan.link_order:
        if item.kind == "sk_entry":
            # At split-mode > 1 the half is its split set (sk.toolflow.entrysplit): the stub defines the entry.
            names = ([item.object_name] if split == 1 else
                     entrysplit.split_names(item.object_name, half_index.get(item.object_name, 0), split))
            for name in names:
                if name not in entries:
                    raise SkError("entry object missing", where=f"--entry-dir/--entry-obj: {name}",
                                  allowed="compile it with `sk entry compile` from the same plan; have: "
                                          + (", ".join(sorted(entries)) or "(none)"))
            append(LinkInput(f"entry {names[0]}", entries[names[0]], entry_symbol=item.symbol))
            for copy, name in enumerate(names[1:]):
                append(LinkInput(f"entry {name}", entries[name],
                                 symbol=entrysplit.local_symbol(plan.kernel_name, item.symbol, copy)))
            continue
        op = item.op_index
        if op is None or not 0 <= op < count:
            raise SkError("link order names an op without a --sub-obj", where=f"plan: op {op}",
                          allowed=f"pass {plan.op_count} --sub-obj, one per op in order")
        archive = sub_objs[op]
        derived = item.derived_from
        source = derived or item.object_name
        member = source if is_archive(archive) else None  # one look per file, not one per member
        label = f"{archive}({source})" if member else archive
        if derived:
            rename = (re.sub(r"_split[0-9]+$", "", item.symbol), item.symbol)
            at = copies.get((op, item.object_name))
            if at is not None:  # another symbol the same copy renames (planned one line per symbol)
                inputs[at] = inputs[at]._replace(rename=inputs[at].rename + (rename,))
                continue
            copies[(op, item.object_name)] = len(inputs)
            append(new(LinkInput, (f"{label} as {item.object_name}", archive, member, None, (rename,),
                                   item.symbol)))
        else:
            append(new(LinkInput, (label, archive, member, None, None, item.symbol)))
    return inputs
