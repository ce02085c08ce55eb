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

import hashlib
import json
import mmap
import os
import re
import subprocess
import threading
from collections import namedtuple

from sk import arfile, jsontext, objsyms, toolargv
from sk.errors import SkError
from sk.toolrun import atomic_output, run_tool, run_tools, scratch_dir

# Symbols any host object may leave undefined: the C library and compiler
# support code the twin's shared library resolves (memcpy for struct copies,
# stack protector, thread-local access, static-local guards, unwinding).
HOST_ALWAYS_ALLOWED = frozenset({
    "_GLOBAL_OFFSET_TABLE_", "__dso_handle", "__tls_get_addr", "__stack_chk_fail",
    "memcpy", "memmove", "memset", "memcmp", "abort",
    "__cxa_guard_acquire", "__cxa_guard_release", "__cxa_guard_abort", "__cxa_atexit",
    "__cxa_pure_virtual", "__gxx_personality_v0", "_Unwind_Resume",
    "__assert_fail", "printf", "fprintf", "puts", "stderr",
})

# GNU ld's --hash-size for the SuperKernel's `ld -r`. Its default table size is
# allocated for every one of thousands of small input objects (311 MB, half
# of ld's time at 1,200 sub-kernels); the tables grow as needed, so a small
# start costs nothing where many symbols come: same sections and symbols,
# ~1.5x faster. Only the global symbols' order in the output changes.
LD_HASH_SIZE = 31


# Tuples, not dataclasses: a link builds 4,800 inputs at 1,200 sub-kernels, and importing
# dataclasses alone took 10 ms of `sk link`.
class LinkInput(namedtuple("LinkInput", "label path member entry_symbol rename symbol",
                           defaults=(None, None, None, None))):
    """One object in link order: where its bytes come from and how to name it.

    label: for messages: "entry <file>" or "<archive>(<member>)"; path: a file,
    or an archive holding `member`; entry_symbol: set for entry objects: keep
    only this global; rename: make a split copy: (func, func_split{i}) applied
    to the bytes; symbol: the one global function a sub object defines (from
    the plan), if known.
    """

    __slots__ = ()


LinkResult = namedtuple("LinkResult", "sha256 defined_globals undefined input_count")


def _dedupe(inputs: list[LinkInput]) -> list[LinkInput]:
    seen, out, normal = set(), [], {}
    for item in inputs:
        path = normal.get(item.path)
        if path is None:  # one normpath per file, not one per member
            path = normal[item.path] = os.path.normpath(item.path)
        key = (path, item.member, item.rename)
        if key not in seen:
            seen.add(key)
            out.append(item)
    return out


def _whole_archive_runs(inputs: list[LinkInput], cache) -> dict[int, int]:
    """{start index: length} of input runs that are exactly one archive's members in order."""
    runs, i = {}, 0
    while i < len(inputs):
        item = inputs[i]
        if item.member is None or item.entry_symbol or item.rename:
            i += 1
            continue
        names = cache.names(item.path)
        n = len(names)
        window = inputs[i:i + n]
        if (len(window) == n and all(w.path == item.path and not w.rename and not w.entry_symbol for w in window)
                and [w.member for w in window] == names):
            runs[i] = n
            i += n
        else:
            i += 1
    return runs


class _ArchiveCache:
    """Each sub-kernel archive's member names (read from the headers, once), and members when extracted."""

    def __init__(self):
        self._names: dict[str, list[str] | SkError | None] = {}
        self._members: dict[str, dict[str, bytes]] = {}

    def is_archive(self, path: str) -> bool:
        """Whether `path` is an ar archive. Its member names are read now; an error reading them is
        raised by names(), where the link meets the archive, and counts as an archive here."""
        names = self._names.get(path, False)
        if names is False:
            try:
                names = arfile.member_names(path, strict=False)
            except SkError as err:
                names = err
            self._names[path] = names
        return names is not None

    def names(self, path: str) -> list[str]:
        if not self.is_archive(path):
            return arfile.member_names(path)  # raises "not an ar archive"
        names = self._names[path]
        if isinstance(names, SkError):
            raise names
        return names

    def _load(self, path: str) -> dict[str, bytes]:
        members = self._members.get(path)
        if members is None:
            members = dict(arfile.members(path))
            self._members[path] = members
        return members

    def get(self, item: LinkInput) -> bytes:
        if item.member is None:
            try:
                with open(item.path, "rb") as f:
                    return f.read()
            except OSError as err:
                raise SkError("cannot read object", where=item.label, value=err.strerror) from None
        members = self._load(item.path)
        if item.member not in members:
            raise SkError("the sub-kernel archive has no such member", where=item.label,
                          allowed="members: " + ", ".join(sorted(members)))
        return members[item.member]


def link(tools: toolargv.Tools, inputs: list[LinkInput], *, entry_symbols: list[str], out_obj: str,
         out_json: str | None = None, meta: dict | None = None, allowed_undefined=frozenset(),
         allow_prefixes: tuple[str, ...] = ()) -> LinkResult:
    """Links `inputs` in order into out_obj; writes out_json = meta + sha256."""
    return _link(tools, inputs, _ArchiveCache(), entry_symbols=entry_symbols, out_obj=out_obj, out_json=out_json,
                 meta=meta, allowed_undefined=allowed_undefined, allow_prefixes=allow_prefixes)


def _link(tools, inputs, cache, *, entry_symbols, out_obj, out_json, meta, allowed_undefined,
          allow_prefixes) -> LinkResult:
    gnu_ld = _gnu_ld_probe(tools)  # `ld --version` runs while the inputs are prepared
    inputs = _dedupe(inputs)
    if not inputs:
        raise SkError("nothing to link", where="--plan", allowed="the plan's link order lists no objects")
    expected = sorted(set(entry_symbols))
    whole = _whole_archive_runs(inputs, cache)
    covered = {start + k for start, n in whole.items() for k in range(n)}
    with scratch_dir(out_obj) as work:
        paths, link_args, jobs = [], [], []
        for i, item in enumerate(inputs):
            if i in whole:
                # This input starts a run that is its archive, whole and in order: no extraction.
                link_args += toolargv.whole_archive(item.path)
            if i in covered:
                paths.append(item.path)
                continue
            # Index-prefixed names: two archives may both hold `add.o`.
            raw = os.path.join(work, f"{i:05d}_{os.path.basename(item.member or item.path)}")
            with open(raw, "wb") as f:
                f.write(cache.get(item))
            if item.entry_symbol:
                raw, job = _entry_job(tools, raw, item)
                jobs.append(job)
            elif item.rename:
                copy = raw + ".copy.o"
                jobs.append((toolargv.redefine_argv(tools, raw, copy, [item.rename]), "making a split copy",
                             item.label))
                raw = copy
            paths.append(raw)
            link_args.append(raw)
        run_tools(jobs)  # independent objcopy runs (entry halves, split copies) overlap
        merged = os.path.join(work, "merged.o")
        ld_argv = toolargv.relocatable_link_argv(tools, link_args, merged,
                                                 discard_locals=tools.flavor == toolargv.CANN,
                                                 hash_size=LD_HASH_SIZE if gnu_ld() else None)
        # ld -r takes most of the time on one core: what does not depend on its output (the
        # localise list, the JSON text around the digest) is made meanwhile on the other.
        ld = _Background(run_tool, ld_argv, step="linking the SuperKernel (ld -r)", where=out_obj)
        try:
            # Fast path: every sub object names the one function it exports (the
            # plan's link order), so the list to localise is known without reading
            # the merged object. Objects with other globals (prebuilt) make the
            # check below fail; then the merged symbol table decides.
            known = [item.symbol for item in inputs if not item.entry_symbol]
            if all(known):
                names = set(known) - set(expected)
                localize = write_symbol_list(os.path.join(work, "localize.txt"), names)
            json_head, json_tail = _meta_text_around_sha256(meta) if out_json else ("", "")
        finally:
            ld.join()
        ld.result()
        final_argv = toolargv.final_link_argv(tools, merged, os.path.join(work, "placed.o"))
        if final_argv:
            run_tool(final_argv, step="placing the SuperKernel (final link)", where=out_obj)
            merged = final_argv[-2]
        if not all(known):
            names = {s.name for s in objsyms.read_object(merged).defined_globals()} - set(expected)
            localize = write_symbol_list(os.path.join(work, "localize.txt"), names)
        with atomic_output(out_obj) as tmp:
            run_tool(toolargv.localize_argv(tools, merged, tmp, symbols_file=localize, strip_groups=False),
                     step="localising the SuperKernel's symbols", where=out_obj)
            data = _read_mapped(tmp)
            # The digest (OpenSSL, outside the interpreter lock) overlaps reading the symbols.
            digest = _Background(_sha256_hex, data)
            try:
                info = objsyms.read_object(tmp, data)
                exported = {s.name for s in info.defined_globals()}
                if exported - set(expected) and all(known):
                    localize = write_symbol_list(os.path.join(work, "localize-all.txt"),
                                                 (names | exported) - set(expected))
                    digest.join()
                    data.close()  # objcopy rewrites the file under the mapping
                    run_tool(toolargv.localize_argv(tools, merged, tmp, symbols_file=localize,
                                                    strip_groups=False),
                             step="localising the SuperKernel's symbols", where=out_obj)
                    data = _read_mapped(tmp)
                    digest = _Background(_sha256_hex, data)
                    info = objsyms.read_object(tmp, data)
                result = _verify(info, out_obj, expected, inputs, paths, cache, allowed_undefined, allow_prefixes,
                                 tools.flavor)
                digest = digest.result()
            finally:
                if isinstance(digest, _Background):
                    digest.join()  # before the mapping it reads goes
                data.close()
            if out_json:
                with atomic_output(out_json) as jtmp:
                    with open(jtmp, "w", encoding="utf-8", newline="\n") as f:
                        f.write(json_head + json.dumps(digest) + json_tail)
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


class _Background:
    """Calls fn(*args, **kwargs) on a thread (a tool run waits outside the interpreter lock)."""

    def __init__(self, fn, *args, **kwargs):
        self._value = self._error = None
        self._thread = threading.Thread(target=self._run, args=(fn, args, kwargs), daemon=True)
        self._thread.start()

    def _run(self, fn, args, kwargs):
        try:
            self._value = fn(*args, **kwargs)
        except BaseException as err:  # noqa: BLE001 - handed to the caller by result()
            self._error = err

    def join(self) -> None:
        self._thread.join()

    def result(self):
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._value


def _sha256_hex(data) -> str:
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


def write_symbol_list(path: str, names) -> str | None:
    """Writes a --localize-symbols file; None when empty (GNU objcopy rejects an empty file)."""
    names = sorted(names)
    if not names:
        return None
    with open(path, "w", encoding="utf-8") as f:
        f.writelines(f"{sym}\n" for sym in names)
    return path


def _is_gnu_ld(tools) -> bool:
    """The host linker is GNU ld (BFD), which takes --hash-size (gold and lld do not)."""
    return _gnu_ld_probe(tools)()


def _gnu_ld_probe(tools):
    """Starts `ld --version`; returns a function that waits for it and answers _is_gnu_ld."""
    if tools.flavor != toolargv.HOST or not tools.linker:
        return lambda: False  # without a linker the link itself reports it
    try:
        proc = subprocess.Popen([tools.linker, "--version"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                text=True)
    except (OSError, subprocess.SubprocessError):
        return lambda: False  # the link itself reports a missing or broken linker

    def answer() -> bool:
        try:
            out, _ = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            return False
        return proc.returncode == 0 and out.startswith("GNU ld ")

    return answer


def _entry_job(tools, raw, item: LinkInput) -> tuple[str, tuple]:
    """(prepared object path, objcopy job) for an entry object: keep only its entry symbol global."""
    info = objsyms.read_object(raw)
    defined = {s.name for s in info.defined_globals()}
    if item.entry_symbol not in defined:
        raise SkError("the entry object does not define its entry symbol", where=f"{item.label}: {item.entry_symbol}",
                      allowed="compile it with `sk entry compile` from the same plan")
    lst = write_symbol_list(raw + ".localize.txt", defined - {item.entry_symbol})
    out = raw + ".entry.o"
    return out, (toolargv.localize_argv(tools, raw, out, symbols_file=lst, strip_groups=True),
                 "localising the entry object", item.label)


def _verify(info, out_obj, expected, inputs, paths, cache, allowed_undefined, allow_prefixes, flavor):
    defined = sorted({s.name for s in info.defined_globals()})
    if defined != expected:
        extra = [s for s in defined if s not in expected]
        raise SkError("the linked SuperKernel exports other global symbols than its entry",
                      where=f"{out_obj}: {', '.join(extra[:10]) or 'missing ' + ', '.join(expected)}",
                      allowed=f"exactly {expected} may stay global; this objcopy did not localise the rest")
    allowed = set(allowed_undefined) | (HOST_ALWAYS_ALLOWED if flavor == toolargv.HOST else set())
    undefined = sorted({s.name for s in info.undefined()})
    bad = [s for s in undefined if s not in allowed and not s.startswith(allow_prefixes)]
    if bad:
        sym = bad[0]
        users = []
        for item, p in zip(inputs, paths):
            data = cache.get(item) if p == item.path and item.member else None
            if any(u.name == sym for u in objsyms.read_object(p, data).undefined()):
                users.append(item.label)
        raise SkError("the linked SuperKernel references a symbol nothing defines",
                      where=f"{', '.join(users) or out_obj}: {sym}",
                      value=bad[:10] if len(bad) > 1 else None,
                      allowed="a sub-kernel may only call functions it defines itself or the runtime provides; "
                              "link the missing code into the sub-kernel's source")
    return defined, undefined


# The twin runtime's interface as kernel_operator.h declares it: the kernel
# hooks and the per-worker SuperKernel globals the runtime defines once.
HOST_RUNTIME_PREFIXES = ("sk_twin_", "g_super_kernel_", "g_superKernelAutoSyncAll", "g_opSystemRunCfg",
                         "_ZN7AscendC", "_ZTH", "_ZTW")


def link_plan(tools: toolargv.Tools, plan, *, entry_dir: str | None, entry_objs, sub_objs, meta_in: str,
              out_obj: str, out_json: str, runtime_libs=(), allow_undefined=()) -> LinkResult:
    """`sk link`: resolves the plan's link order to files and links them."""
    if plan.op_count and len(sub_objs) != plan.op_count:
        raise SkError(f"the plan has {plan.op_count} ops but {len(sub_objs)} --sub-obj were given", where="--sub-obj",
                      allowed="pass one sub-op archive per op, in op order")
    entries = {}
    for path in entry_objs:
        entries[os.path.basename(path)] = path
    if entry_dir:
        for unit_name in sorted(os.listdir(entry_dir)):
            entries.setdefault(unit_name, os.path.join(entry_dir, unit_name))
    inputs, cache, count = [], _ArchiveCache(), len(sub_objs)
    new, is_archive, append = tuple.__new__, cache.is_archive, inputs.append  # 4,800 items: no lookups
    for item in plan.link_order:
        if item.kind == "sk_entry":
            if item.object_name not in entries:
                raise SkError("entry object missing", where=f"--entry-dir/--entry-obj: {item.object_name}",
                              allowed="compile it with `sk entry compile` from the same plan; have: "
                                      + (", ".join(sorted(entries)) or "(none)"))
            append(LinkInput(f"entry {item.object_name}", entries[item.object_name], entry_symbol=item.symbol))
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
            append(new(LinkInput, (f"{label} as {item.object_name}", archive, member, None, rename, item.symbol)))
        else:
            append(new(LinkInput, (label, archive, member, None, None, item.symbol)))
    try:
        with open(meta_in, encoding="utf-8") as f:
            meta = json.load(f)
    except (OSError, json.JSONDecodeError) as err:
        raise SkError(f"cannot read the SuperKernel JSON ({err})", where="--meta-in", value=meta_in) from None
    if not isinstance(meta, dict):
        raise SkError("the SuperKernel JSON is not a JSON object", where="--meta-in", value=meta_in,
                      allowed="pass the <name>.json written by `sk gen`")
    allowed = set(allow_undefined)
    for lib in runtime_libs:
        allowed |= objsyms.provided_symbols(lib)
    prefixes = HOST_RUNTIME_PREFIXES if tools.flavor == toolargv.HOST else ()
    return _link(tools, inputs, cache, entry_symbols=list(plan.entry_symbols), out_obj=out_obj, out_json=out_json,
                 meta=meta, allowed_undefined=frozenset(allowed), allow_prefixes=prefixes)
