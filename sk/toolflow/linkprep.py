"""What `ld -r` of a SuperKernel is given, and getting it started early.

The link's inputs (entry objects, sub-kernel archive members, split copies)
become a layout: the files to write into the scratch directory, the objcopy
jobs that prepare them (entry halves, split copies) and the `ld -r` argv.
A layout is a function of the inputs and of what the archives answer
(member names, bytes), computed without side effects. `sk link` starts the
jobs and ld from a layout that assumes every sub-kernel archive holds
exactly the members the plan takes from it, in plan order (what `sk
subkernel pack` writes), checks those answers while ld runs, and keeps that
ld only where they hold: then the checked layout is the same. Otherwise ld
is killed and the checked layout runs instead (EarlyLink).
"""

from __future__ import annotations

import os
import threading
from collections import namedtuple

from sk.binfmt import ar, elf, objfacts
from sk.toolflow import toolargv
from sk.toolflow.entrysplit import RUN_CFG
from sk.base.errors import SkError
from sk.base.toolrun import run_tools, start_tool

# GNU ld's --hash-size for the SuperKernel's `ld -r`. Its default table size is
# allocated for every one of thousands of small input objects (311 MB, half
# of ld's time at 1,200 sub-kernels); the tables grow as needed, so a small
# start costs nothing where many symbols come: same sections and symbols,
# ~1.5x faster. Only the global symbols' order in the output changes.
LD_HASH_SIZE = 31

LD_STEP = "linking the SuperKernel (ld -r)"


# Tuples, not dataclasses: a link builds 4,800 inputs at 1,200 sub-kernels, and importing
# dataclasses alone took 10 ms of `sk link`.
class LinkInput(namedtuple("LinkInput", "label path member entry_symbol rename symbol",
                           defaults=(None, None, None, None))):
    """One object in link order: where its bytes come from and how to name it.

    label: for messages: "entry <file>" or "<archive>(<member>)"; path: a file,
    or an archive holding `member`; entry_symbol: set for entry objects: keep
    only this global; rename: make a split copy: the (func, func_split{i}) pairs
    applied to the bytes; symbol: the one global function a sub object defines (from
    the plan), if known.
    """

    __slots__ = ()


# paths: per input, the file `_verify` reads it from (an archive, or a file written into the scratch
# directory); writes: (file, input) whose bytes are written there; lists: (file, names) of
# --localize-symbols files; jobs: (argv, step, where) of the objcopy runs; ld_argv: `ld -r`.
Layout = namedtuple("Layout", "paths writes lists jobs ld_argv")


def dedupe(inputs: list[LinkInput]) -> list[LinkInput]:
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


def whole_archive_runs(inputs: list[LinkInput], cache) -> dict[int, int]:
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


class ArchiveCache:
    """Each sub-kernel archive's member names (read from the headers, once), members when extracted, and
    plain input files' bytes."""

    def __init__(self):
        self._names: dict[str, list[str] | SkError | None] = {}
        self._members: dict[str, dict[str, bytes]] = {}
        self._files: dict[str, bytes] = {}

    def is_archive(self, path: str) -> bool:
        """Whether `path` is an ar archive. Its member names are read now; an error reading them is
        raised by names(), where the link meets the archive, and counts as an archive here."""
        names = self._names.get(path, False)
        if names is False:
            try:
                names = ar.member_names(path, strict=False)
            except SkError as err:
                names = err
            self._names[path] = names
        return names is not None

    def names(self, path: str) -> list[str]:
        if not self.is_archive(path):
            return ar.member_names(path)  # raises "not an ar archive"
        names = self._names[path]
        if isinstance(names, SkError):
            raise names
        return names

    def _load(self, path: str) -> dict[str, bytes]:
        members = self._members.get(path)
        if members is None:
            members = ar.by_name(ar.read_members(path))  # the first member of a name, as the engine
            self._members[path] = members
        return members

    def get(self, item: LinkInput) -> bytes:
        if item.member is None:
            data = self._files.get(item.path)
            if data is None:
                try:
                    with open(item.path, "rb") as f:
                        data = self._files[item.path] = f.read()
                except OSError as err:
                    raise SkError("cannot read object", where=item.label, value=err.strerror) from None
            return data
        members = self._load(item.path)
        if item.member not in members:
            raise SkError("the sub-kernel archive has no such member", where=item.label,
                          allowed="members: " + ", ".join(sorted(members)))
        return members[item.member]


class AssumedArchives:
    """An ArchiveCache's answers if every archive input holds exactly the members the inputs take from it, in
    their order: what the link would do then, before an archive is opened. Object bytes come from `cache`.

    holds(cache) checks the assumption where the layout relied on it.
    """

    def __init__(self, cache: ArchiveCache, inputs: list[LinkInput], archives=()):
        """archives: further paths taken for archives (inputs that dedupe() dropped name them differently)."""
        self._cache = cache
        self._names: dict[str, list[str]] = {}
        self._archives = set(archives)
        self.asked: set[str] = set()  # archives whose names() a layout read
        seen = set()
        for item in inputs:
            if item.member is not None and (item.path, item.member) not in seen:
                seen.add((item.path, item.member))
                self._names.setdefault(item.path, []).append(item.member)

    def names(self, path: str) -> list[str]:
        self.asked.add(path)
        return self._names[path]

    def get(self, item: LinkInput) -> bytes:
        return self._cache.get(item)

    def holds(self, cache: ArchiveCache) -> bool:
        """Whether `cache` answers as assumed: every archive input is an archive, and those the layout asked
        about hold exactly the assumed members, in order (an archive that cannot be read does not)."""
        for path in sorted(self._archives.union(self._names)):
            if not cache.is_archive(path):
                return False
        for path in sorted(self.asked):
            try:
                if cache.names(path) != self._names[path]:
                    return False
            except SkError:
                return False
        return True


def layout(tools: toolargv.Tools, inputs: list[LinkInput], cache, work: str, gnu_ld) -> Layout:
    """The link of deduplicated `inputs` in the scratch directory `work`, without writing or running anything.

    gnu_ld: a function answering whether the linker is GNU ld. SkError for an
    input that cannot be read or an entry object without its entry symbol, in
    input order.
    """
    whole = whole_archive_runs(inputs, cache)
    covered = {start + k for start, n in whole.items() for k in range(n)}
    paths, link_args, writes, lists, jobs = [], [], [], [], []
    for i, item in enumerate(inputs):
        if i in whole:
            # This input starts a run that is its archive, whole and in order: no extraction.
            link_args += toolargv.whole_archive(item.path)
        if i in covered:
            paths.append(item.path)
            continue
        # Index-prefixed names: two archives may both hold `add.o`.
        raw = os.path.join(work, f"{i:05d}_{os.path.basename(item.member or item.path)}")
        data = cache.get(item)
        if item.entry_symbol:
            job = entry_localize_job(tools, raw, raw + ".entry.o", objfacts.read_object(item.label, data=data),
                                     item.entry_symbol, item.label)
            if job is None:  # `sk entry compile` localised it: linked where it is
                paths.append(item.path)
                link_args.append(item.path)
                continue
            writes.append((raw, item))
            argv, names = job
            if names:
                lists.append(names)
            jobs.append((argv, "localising the entry object", item.label))
            raw = argv[-1]
        elif item.rename:
            writes.append((raw, item))
            copy = raw + ".copy.o"
            jobs.append((tuple(toolargv.redefine_argv(tools, raw, copy, item.rename)), "making a split copy",
                         item.label))
            raw = copy
        else:
            writes.append((raw, item))
        paths.append(raw)
        link_args.append(raw)
    ld_argv = relocatable_link_argv(tools, link_args, os.path.join(work, "merged.o"), gnu_ld)
    return Layout(tuple(paths), tuple(writes), tuple(lists), tuple(jobs), tuple(ld_argv))


def relocatable_link_argv(tools: toolargv.Tools, link_args, out: str, gnu_ld) -> list[str]:
    """sk link's `ld -r` of link_args (objects, toolargv.whole_archive tokens): toolargv's argv with the
    options this linker gets here. gnu_ld: a function answering whether the linker is GNU ld."""
    return toolargv.relocatable_link_argv(tools, link_args, out, discard_locals=tools.flavor == toolargv.CANN,
                                          hash_size=LD_HASH_SIZE if gnu_ld() else None)


def entry_localize_job(tools: toolargv.Tools, raw: str, out: str, info, entry_symbol: str, label: str):
    """The objcopy that makes an entry object (one SuperKernel half) linkable beside the other half.

    Keeps only the entry symbol (and g_opSystemRunCfg, which the sub-kernels read and the SuperKernel
    defines) global and dissolves the COMDAT groups: both halves are compiled from one
    source with different macros, so their inline functions must not be merged. Returns (argv, (list file,
    names) or None), or None where `info` (the object's symbols) shows that is done already. SkError when
    the object does not define its entry symbol.
    """
    defined = {s.name for s in info.defined_globals()}
    if entry_symbol not in defined:
        raise SkError("the entry object does not define its entry symbol", where=f"{label}: {entry_symbol}",
                      allowed="compile it with `sk entry compile` from the same plan")
    names = tuple(sorted(defined - {entry_symbol, RUN_CFG}))
    if not names and not info.group_count:
        return None
    lst = raw + ".localize.txt" if names else None  # GNU objcopy rejects an empty list
    argv = tuple(toolargv.localize_argv(tools, raw, out, symbols_file=lst, strip_groups=True))
    return argv, ((lst, names) if lst else None)


def localize_entry(tools: toolargv.Tools, raw: str, out: str, entry_symbol: str, label: str) -> None:
    """Writes `out`: the compiled entry object `raw` as entry_localize_job leaves it (a copy if nothing
    is to do)."""
    data = make_localizable(raw, label)  # a scratch file of the caller's
    job = entry_localize_job(tools, raw, out, objfacts.read_object(label, data=data), entry_symbol, label)
    if job is None:
        with open(out, "wb") as f:
            f.write(data)
        return
    argv, names = job
    try:
        if names:
            write_symbol_list(*names)
        run_tools([(argv, "localising the entry object", label)])
    finally:
        if names:
            os.unlink(names[0])


def make_localizable(path: str, where: str) -> bytes:
    """Rewrites the object file at `path` as elf.unique_as_global leaves it, if that changes it; its bytes.

    Before an objcopy --localize-symbols of it, which g++'s unique symbols would escape.
    """
    with open(path, "rb") as f:
        data = f.read()
    patched = elf.unique_as_global(data, os.path.basename(path), where)
    if patched is data:
        return data
    with open(path, "wb") as f:
        f.write(patched)
    return bytes(patched)


def write_inputs(plan: Layout, cache) -> None:
    """Writes the layout's files into the scratch directory."""
    for path, item in plan.writes:
        data = cache.get(item)
        if item.entry_symbol:  # localised next (entry_localize_job), which g++'s unique symbols escape
            data = elf.unique_as_global(data, os.path.basename(path), item.label)
        with open(path, "wb") as f:
            f.write(data)
    for path, names in plan.lists:
        write_symbol_list(path, names)


def write_symbol_list(path: str, names) -> str | None:
    """Writes a --localize-symbols file; None when empty (GNU objcopy rejects an empty file)."""
    names = sorted(names)
    if not names:
        return None
    with open(path, "w", encoding="utf-8") as f:
        f.writelines(f"{sym}\n" for sym in names)
    return path


def start_link(plan: Layout, out_obj: str):
    """Runs the layout's objcopy jobs at once (SkError as run_tools), then starts its `ld -r`: the Started ld."""
    run_tools(plan.jobs)
    return start_tool(list(plan.ld_argv), step=LD_STEP, where=out_obj)


class Background:
    """Calls fn(*args, **kwargs) on a thread (a tool run or OpenSSL works outside the interpreter lock)."""

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


class EarlyLink:
    """`ld -r` started before the archives are checked: from the layout AssumedArchives gives.

    The caller checks the archives while ld runs (holds()); where they are as
    assumed, the checked link's inputs and layout are this one's, and it
    waits for this ld; else it stops this ld and runs its own. A layout that
    cannot be made here (an unreadable entry object, a missing member) is left
    to the checked link, which reports it in its own order; a job or ld that
    fails here fails the link with the error the checked link would report.
    """

    def __init__(self, inputs: list[LinkInput], assumed: AssumedArchives, plan: Layout, ld, error: SkError | None):
        self.inputs, self._assumed, self.layout, self._ld, self._error = inputs, assumed, plan, ld, error

    @classmethod
    def start(cls, tools, inputs: list[LinkInput], cache: ArchiveCache, work: str, gnu_ld, out_obj: str):
        """An EarlyLink of the inputs, or None where the assumed layout cannot be made.

        inputs: as the checked link would have them if every sub-kernel object is an archive.
        """
        try:
            archives = {item.path for item in inputs if item.member is not None}
            inputs = dedupe(inputs)
            if not inputs:
                return None
            assumed = AssumedArchives(cache, inputs, archives)
            plan = layout(tools, inputs, assumed, work, gnu_ld)
        except SkError:
            return None
        write_inputs(plan, cache)
        try:
            return cls(inputs, assumed, plan, start_link(plan, out_obj), None)
        except SkError as err:
            return cls(inputs, assumed, plan, None, err)

    def holds(self, cache: ArchiveCache) -> bool:
        """Whether the archives are as assumed (read through `cache`); if not, this ld is stopped."""
        if self._assumed.holds(cache):
            return True
        self.stop()
        return False

    def wait(self) -> str:
        """As the Started ld's wait(); the objcopy jobs' error first."""
        if self._error is not None:
            raise self._error
        return self._ld.wait()

    def stop(self) -> None:
        """Kills ld if it runs and reaps it."""
        if self._ld is not None:
            self._ld.stop()
