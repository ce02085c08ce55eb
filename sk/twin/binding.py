"""The CPU twin from Python: build the runtime, load kernels, launch, trace.

The runtime (sk/runtime, C++17) runs Ascend C kernels and generated
SuperKernel entries on host threads: one thread per AIC/AIV worker of a
launch topology. This module builds it with the host g++ outside Bazel (for
`python -m pytest` and `python -m sk run`), loads it with ctypes, and turns
launch failures into SkError with the runtime's message.

Kernels for the twin are compiled with `kernel_cflags()` (which includes
`-I sk/runtime/include -D__CCE_KT_TEST__=1`) and linked as shared libraries
whose undefined symbols resolve against the runtime loaded by `Twin`.

ThreadSanitizer: `build_runtime(dir, tsan=True)` and `kernel_cflags(tsan=True)`
instrument both; a process that loads them must start with `tsan_env()`
(libtsan preloaded), e.g. a subprocess Python running the launches.
"""

from __future__ import annotations

import ctypes
import dataclasses
import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Iterable, Sequence

from sk.base.errors import SkError
from sk.toolflow import toolargv

# Not resolved: under Bazel the runtime sources are runfiles beside this file.
RUNTIME_DIR = Path(os.path.abspath(__file__)).parent.parent / "runtime"
INCLUDE_DIR = RUNTIME_DIR / "include"
SOURCE_DIR = RUNTIME_DIR / "src"

PARA_BASE_ENTRY = 0xFFFFFFFF
MAX_ARGS = 32
RATIONS = ((1, 0), (0, 1), (1, 1), (1, 2))

STATUS_NAMES = {0: "ok", 1: "deadlock", 2: "kernel error", 3: "bad launch", 4: "hang", 5: "task error"}


def compiler() -> str:
    """The host C++ compiler: $CXX, else g++ on PATH."""
    cxx = os.environ.get("CXX") or shutil.which("g++")
    if not cxx:
        raise SkError(
            "no host C++ compiler for the CPU twin",
            where="CXX",
            allowed="install g++ or set CXX to a C++17 compiler",
        )
    return cxx


def kernel_cflags(tsan: bool = False) -> list[str]:
    """Flags to compile kernels and SK entries for the twin."""
    return toolargv.twin_cflags(str(INCLUDE_DIR), tsan=tsan)


def runtime_sources() -> list[Path]:
    return sorted(SOURCE_DIR.glob("*.cc"))


def _runtime_inputs() -> list[Path]:
    return runtime_sources() + sorted(SOURCE_DIR.glob("*.h")) + sorted(INCLUDE_DIR.glob("*.h"))


def _run(argv: Sequence[str], what: str) -> None:
    proc = subprocess.run(list(argv), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
    if proc.returncode != 0:
        raise SkError(
            f"{what} failed (exit {proc.returncode}): {proc.stdout.strip()[-4000:]}",
            where=" ".join(argv[:2]),
        )


def _stamp(parts: Iterable[bytes]) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(len(part).to_bytes(8, "little"))
        digest.update(part)
    return digest.hexdigest()


def build_runtime(out_dir: os.PathLike | str, tsan: bool = False) -> Path:
    """Builds libskrt.so (libskrt_tsan.so with tsan) into out_dir; returns its path.

    Rebuilds only when the sources, flags or compiler change (a stamp file
    beside the library records them), so tests may call it freely.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    lib = out / ("libskrt_tsan.so" if tsan else "libskrt.so")
    cxx = compiler()

    def compile_argv(src, obj):
        return toolargv.twin_runtime_compile_argv(cxx, src, obj, include_dir=str(INCLUDE_DIR),
                                                  source_dir=str(SOURCE_DIR), tsan=tsan)

    # The argv with placeholder paths: a flag change is a rebuild.
    stamp = _stamp(
        [" ".join(compile_argv("SRC", "OBJ")).encode(),
         " ".join(toolargv.twin_runtime_link_argv(cxx, ["OBJ"], "LIB", tsan=tsan)).encode()]
        + [p.name.encode() + p.read_bytes() for p in _runtime_inputs()]
    )
    stamp_file = lib.with_suffix(".so.stamp")
    if lib.exists() and stamp_file.exists() and stamp_file.read_text() == stamp:
        return lib
    with tempfile.TemporaryDirectory(dir=out) as tmp:
        objects = []
        procs = []
        for src in runtime_sources():
            obj = Path(tmp) / (src.stem + ".o")
            argv = compile_argv(str(src), str(obj))
            procs.append((argv, subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                                 errors="replace")))
            objects.append(str(obj))
        failures = []
        for argv, proc in procs:
            text, _ = proc.communicate()
            if proc.returncode != 0:
                failures.append(f"{argv[-3]}: {text.strip()[-3000:]}")
        if failures:
            raise SkError("building the twin runtime failed: " + " | ".join(failures), where=str(SOURCE_DIR))
        staged = Path(tmp) / lib.name
        _run(toolargv.twin_runtime_link_argv(cxx, objects, str(staged), tsan=tsan), "linking the twin runtime")
        os.replace(staged, lib)
    stamp_file.write_text(stamp)
    return lib


def build_kernel_library(
    sources: Sequence[os.PathLike | str],
    out_path: os.PathLike | str,
    *,
    defines: Sequence[str] = (),
    include_dirs: Sequence[os.PathLike | str] = (),
    extra_flags: Sequence[str] = (),
    tsan: bool = False,
) -> Path:
    """Compiles kernel sources (and SK entries) into one shared library.

    Runtime symbols stay undefined and resolve against the runtime a Twin
    loaded first. defines are NAME or NAME=VALUE (without -D).
    """
    out = Path(out_path)
    out.parent.mkdir(parents=True, exist_ok=True)
    argv = toolargv.twin_kernel_library_argv(
        compiler(), [str(s) for s in sources], str(out), include_dir=str(INCLUDE_DIR),
        include_dirs=[str(d) for d in include_dirs], defines=defines, extra=extra_flags, tsan=tsan)
    _run(argv, "compiling kernels for the twin")
    return out


def tsan_runtime_library() -> str:
    """Path of libtsan for LD_PRELOAD."""
    proc = subprocess.run([compiler(), "-print-file-name=libtsan.so"], stdout=subprocess.PIPE, text=True,
                          errors="replace")
    path = proc.stdout.strip()
    if proc.returncode != 0 or not os.path.isabs(path) or not os.path.exists(path):
        raise SkError(
            "ThreadSanitizer runtime not found",
            where="libtsan.so",
            value=path,
            allowed="install the compiler's libtsan (Debian: libtsan2)",
        )
    return path


def tsan_env(base: dict | None = None, suppressions: os.PathLike | str | None = None) -> dict:
    """Environment for a process that loads a tsan-built runtime and kernels."""
    env = dict(os.environ if base is None else base)
    env["LD_PRELOAD"] = tsan_runtime_library()
    options = ["halt_on_error=0", "exitcode=66", "report_signal_unsafe=0", "history_size=4"]
    if suppressions is not None:
        options.append(f"suppressions={suppressions}")
    env["TSAN_OPTIONS"] = " ".join(options)
    return env


@dataclasses.dataclass(frozen=True)
class Event:
    worker: int
    begin_ns: int
    end_ns: int
    name: str
    category: str


@dataclasses.dataclass
class LaunchResult:
    name: str
    status: int
    error: str
    residual: str
    wall_ns: int
    start_ns: int
    counters: dict[str, int]
    workers: list[str]
    events: list[Event]

    @property
    def ok(self) -> bool:
        return self.status == 0


class TwinLaunchError(SkError):
    """A launch that failed on the twin (deadlock, kernel misuse, bad launch)."""

    def __init__(self, result: LaunchResult, launch: str = ""):
        self.result = result
        super().__init__(
            f"twin launch failed ({STATUS_NAMES.get(result.status, result.status)}): {result.error}",
            where=f"{launch}: kernel {result.name}" if launch else f"kernel {result.name}",
        )


@dataclasses.dataclass
class LaunchSpec:
    """One launch. entry: function address (int). num_args None = SK entry
    (void(void), reads get_para_base()); else N GM_ADDR args from params."""

    name: str
    entry: int
    block_dim: int
    ration: tuple[int, int] | str
    params: Sequence[int] = ()
    num_args: int | None = None
    entry_aiv: int | None = None
    coreid_offset: int = 0
    timeout_ms: int = 0
    trace: bool = False


class _Launch(ctypes.Structure):
    _fields_ = [
        ("name", ctypes.c_char_p),
        ("entry", ctypes.c_void_p),
        ("entry_aiv", ctypes.c_void_p),
        ("num_args", ctypes.c_uint32),
        ("block_dim", ctypes.c_uint32),
        ("aic_ration", ctypes.c_uint32),
        ("aiv_ration", ctypes.c_uint32),
        ("params", ctypes.POINTER(ctypes.c_uint64)),
        ("num_params", ctypes.c_uint32),
        ("coreid_offset", ctypes.c_uint32),
        ("timeout_ms", ctypes.c_uint32),
        ("trace", ctypes.c_uint32),
    ]


class _TilingContext(ctypes.Structure):  # sk_tiling.h SkTilingContext
    _fields_ = [
        ("num_inputs", ctypes.c_uint32),
        ("inputs", ctypes.POINTER(ctypes.c_void_p)),
        ("input_bytes", ctypes.POINTER(ctypes.c_uint64)),
        ("tiling", ctypes.c_void_p),
        ("tiling_bytes", ctypes.c_uint64),
        ("max_block_dim", ctypes.c_uint32),
        ("tiling_key", ctypes.c_uint64),
        ("block_dim", ctypes.c_uint32),
    ]




class _Word(ctypes.Structure):  # sk_twin.h SkTwinWord
    _fields_ = [("addr", ctypes.c_void_p), ("writer", ctypes.c_uint32), ("what", ctypes.c_char_p)]


class _Task(ctypes.Structure):  # sk_twin.h SkTwinTask
    _fields_ = [
        ("name", ctypes.c_char_p),
        ("wait_word", ctypes.c_int32),
        ("tiling", ctypes.c_void_p),
        ("tiling_ctx", ctypes.POINTER(_TilingContext)),
        ("tiling_keys", ctypes.POINTER(ctypes.c_uint64)),
        ("num_tiling_keys", ctypes.c_uint32),
        ("key_word", ctypes.c_int32),
        ("block_word", ctypes.c_int32),
        ("release_word", ctypes.c_int32),
        ("prefetch", ctypes.c_void_p),
        ("prefetch_bytes", ctypes.c_uint64),
        ("what", ctypes.c_char_p),
    ]


@dataclasses.dataclass(frozen=True)
class TilingCall:
    """A host tiling function (sk_tiling.h) and what it reads and writes: inputs [(address, bytes)],
    the op's tiling buffer, the kernel's block_dim and tiling keys."""

    function: int
    label: str            # for messages: "tiling function grouped_add_tiling of op 2 (experts)"
    inputs: tuple
    tiling: int
    tiling_bytes: int
    max_block_dim: int
    keys: tuple

    def context(self, keep: list) -> _TilingContext:
        ptrs = (ctypes.c_void_p * max(1, len(self.inputs)))(*(a for a, _ in self.inputs))
        sizes = (ctypes.c_uint64 * max(1, len(self.inputs)))(*(n for _, n in self.inputs))
        keep.extend([ptrs, sizes])
        return _TilingContext(num_inputs=len(self.inputs), inputs=ptrs, input_bytes=sizes, tiling=self.tiling,
                              tiling_bytes=self.tiling_bytes, max_block_dim=self.max_block_dim)


@dataclasses.dataclass(frozen=True)
class TwinWord:
    """A memory-semantic GM word of a launch (sk_twin.h SkTwinWord); by_task: a task writes it."""

    address: int
    by_task: bool
    what: str


@dataclasses.dataclass(frozen=True)
class TwinTask:
    """An external task of a launch (sk_twin.h SkTwinTask); words are indices into the launch's words."""

    name: str
    wait_word: int | None
    release_word: int
    tiling: TilingCall | None = None
    key_word: int | None = None
    block_word: int | None = None
    prefetch: tuple | None = None  # (address, bytes)


def _task_struct(t: TwinTask, keep: list) -> _Task:
    """sk_twin.h SkTwinTask of t; what it points to stays alive in `keep`."""
    ctx = keys = what = None
    if t.tiling is not None:
        ctx = t.tiling.context(keep)
        keys = (ctypes.c_uint64 * max(1, len(t.tiling.keys)))(*t.tiling.keys)
        what = t.tiling.label.encode()
        keep.extend([ctx, keys, what])
    name = t.name.encode()
    keep.append(name)
    return _Task(
        name=name, wait_word=-1 if t.wait_word is None else t.wait_word,
        tiling=t.tiling.function if t.tiling else None,
        tiling_ctx=ctypes.pointer(ctx) if ctx is not None else None,
        tiling_keys=ctypes.cast(keys, ctypes.POINTER(ctypes.c_uint64)) if keys is not None else None,
        num_tiling_keys=len(t.tiling.keys) if t.tiling else 0,
        key_word=-1 if t.key_word is None else t.key_word,
        block_word=-1 if t.block_word is None else t.block_word, release_word=t.release_word,
        prefetch=t.prefetch[0] if t.prefetch else None, prefetch_bytes=t.prefetch[1] if t.prefetch else 0,
        what=what)


class GmBuffer:
    """Zeroed GM memory owned by a Twin; `address` goes into params."""

    def __init__(self, twin: "Twin", size: int, name: str = ""):
        self._twin = twin
        self.size = size
        # The name is what the twin's guard pages report an access beside this buffer as.
        self.address = twin._lib.sk_twin_gm_alloc_named(size, name.encode())
        if not self.address:
            raise SkError("GM allocation failed", where="Twin.alloc", value=size)

    def read(self, offset: int = 0, size: int | None = None) -> bytes:
        size = self.size - offset if size is None else size
        self._check(offset, size)
        return ctypes.string_at(self.address + offset, size)

    def write(self, data: bytes, offset: int = 0) -> None:
        self._check(offset, len(data))
        ctypes.memmove(self.address + offset, data, len(data))

    def _check(self, offset: int, size: int) -> None:
        if offset < 0 or size < 0 or offset + size > self.size:
            raise SkError(
                "GM access out of range",
                where="GmBuffer",
                value=(offset, size),
                allowed=f"0 <= offset, offset + size <= {self.size}",
            )

    def free(self) -> None:
        if self.address:
            self._twin._lib.sk_twin_gm_free(ctypes.c_void_p(self.address))
            self.address = 0


def parse_ration(ration: tuple[int, int] | str, where: str = "ration") -> tuple[int, int]:
    value = ration
    if isinstance(ration, str):
        parts = ration.split(":")
        try:
            value = tuple(int(p) for p in parts)
        except ValueError:
            value = None
    if value not in RATIONS:
        raise SkError(
            "unsupported task ration",
            where=where,
            value=ration,
            allowed="one of 1:0, 0:1, 1:1, 1:2 (cube workers : vector workers per block)",
        )
    return value  # type: ignore[return-value]


_LOADED_RUNTIME: list[Path] = []


def default_build_dir() -> Path:
    """Where tests and tools share one runtime build: $SK_TWIN_BUILD_DIR, else
    $TEST_TMPDIR (Bazel), else a per-user directory under the temp dir."""
    explicit = os.environ.get("SK_TWIN_BUILD_DIR") or os.environ.get("TEST_TMPDIR")
    if explicit:
        return Path(explicit) / "sk_twin"
    return Path(tempfile.gettempdir()) / f"sk_twin-{os.getuid()}"


def _libtsan_loaded() -> bool:
    try:
        return "libtsan" in Path("/proc/self/maps").read_text()
    except OSError:
        return False


class Twin:
    """A loaded twin runtime (one per process: kernels bind to it globally)."""

    def __init__(self, lib_path: os.PathLike | str):
        path = Path(lib_path)
        if not path.exists():
            raise SkError("twin runtime library not found", where="Twin", value=str(path),
                          allowed="build it with sk.twin.binding.build_runtime(out_dir)")
        if path.name.startswith("libskrt_tsan") and not _libtsan_loaded():
            raise SkError(
                "a ThreadSanitizer runtime needs libtsan loaded first",
                where="Twin",
                value=str(path),
                allowed="run the process with sk.twin.binding.tsan_env() (LD_PRELOAD of libtsan)",
            )
        # Kernels resolve the runtime's symbols globally, so one process can
        # hold only one runtime.
        resolved = path.resolve()
        if _LOADED_RUNTIME and _LOADED_RUNTIME[0] != resolved:
            raise SkError(
                "a different twin runtime is already loaded in this process",
                where="Twin",
                value=str(path),
                allowed=f"use {_LOADED_RUNTIME[0]} (one runtime per process)",
            )
        self._lib = ctypes.CDLL(str(resolved), mode=ctypes.RTLD_GLOBAL)
        if not _LOADED_RUNTIME:
            _LOADED_RUNTIME.append(resolved)
        self._declare()
        self.counter_names = [
            self._lib.sk_twin_counter_name(i).decode() for i in range(self._lib.sk_twin_counter_count())
        ]

    def _declare(self) -> None:
        lib = self._lib
        u32, u64, vp = ctypes.c_uint32, ctypes.c_uint64, ctypes.c_void_p
        res = ctypes.c_void_p
        lib.sk_twin_launch.argtypes = [ctypes.POINTER(_Launch), ctypes.POINTER(res)]
        lib.sk_twin_launch.restype = ctypes.c_int
        lib.sk_twin_launch_tasks.argtypes = [ctypes.POINTER(_Launch), ctypes.POINTER(_Word), u32,
                                             ctypes.POINTER(_Task), u32, ctypes.POINTER(res)]
        lib.sk_twin_launch_tasks.restype = ctypes.c_int
        lib.sk_twin_run_tiling.argtypes = [ctypes.POINTER(_Task), u32, ctypes.POINTER(res)]
        lib.sk_twin_run_tiling.restype = ctypes.c_int
        lib.sk_twin_run_sequence.argtypes = [ctypes.POINTER(_Launch), u32, ctypes.POINTER(res)]
        lib.sk_twin_run_sequence.restype = ctypes.c_int
        lib.sk_twin_result_free.argtypes = [res]
        lib.sk_twin_result_free.restype = None
        for fn, rt in (
            ("sk_twin_result_status", ctypes.c_int),
            ("sk_twin_result_error", ctypes.c_char_p),
            ("sk_twin_result_residual", ctypes.c_char_p),
            ("sk_twin_result_wall_ns", u64),
            ("sk_twin_result_start_ns", u64),
            ("sk_twin_result_worker_count", u32),
            ("sk_twin_result_event_count", u64),
        ):
            getattr(lib, fn).argtypes = [res]
            getattr(lib, fn).restype = rt
        lib.sk_twin_result_counter.argtypes = [res, u32]
        lib.sk_twin_result_counter.restype = u64
        lib.sk_twin_result_worker_label.argtypes = [res, u32]
        lib.sk_twin_result_worker_label.restype = ctypes.c_char_p
        lib.sk_twin_result_event.argtypes = [
            res, u64, ctypes.POINTER(u32), ctypes.POINTER(u64), ctypes.POINTER(u64),
            ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(ctypes.c_char_p),
        ]
        lib.sk_twin_result_event.restype = ctypes.c_int
        lib.sk_twin_counter_count.restype = u32
        lib.sk_twin_counter_name.argtypes = [u32]
        lib.sk_twin_counter_name.restype = ctypes.c_char_p
        lib.sk_twin_gm_alloc.argtypes = [u64]
        lib.sk_twin_gm_alloc.restype = vp
        lib.sk_twin_gm_alloc_named.argtypes = [u64, ctypes.c_char_p]
        lib.sk_twin_gm_alloc_named.restype = vp
        lib.sk_twin_gm_free.argtypes = [vp]
        lib.sk_twin_gm_free.restype = None
        lib.sk_twin_cycle_hz.restype = u64

    @property
    def cycle_hz(self) -> int:
        return int(self._lib.sk_twin_cycle_hz())

    def load_kernels(self, path: os.PathLike | str) -> ctypes.CDLL:
        """Loads a kernel library privately: two libraries may define the same
        sub-kernel names; their runtime references bind to this runtime."""
        return ctypes.CDLL(str(path), mode=ctypes.RTLD_LOCAL)

    @staticmethod
    def symbol(lib: ctypes.CDLL, name: str) -> int:
        try:
            return ctypes.cast(getattr(lib, name), ctypes.c_void_p).value or 0
        except AttributeError:
            raise SkError("kernel symbol not found", where=str(lib._name), value=name) from None

    def alloc(self, size: int, name: str = "") -> GmBuffer:
        return GmBuffer(self, size, name)

    def _struct(self, spec: LaunchSpec, keep: list) -> _Launch:
        aic, aiv = parse_ration(spec.ration, where=f"kernel {spec.name}: ration")
        num_args = PARA_BASE_ENTRY if spec.num_args is None else int(spec.num_args)
        params = [int(p.address if isinstance(p, GmBuffer) else p) for p in spec.params]
        array = (ctypes.c_uint64 * max(1, len(params)))(*params)
        name = spec.name.encode()
        keep.extend([array, name])
        return _Launch(
            name=name,
            entry=spec.entry,
            entry_aiv=spec.entry_aiv,
            num_args=num_args,
            block_dim=spec.block_dim,
            aic_ration=aic,
            aiv_ration=aiv,
            params=ctypes.cast(array, ctypes.POINTER(ctypes.c_uint64)),
            num_params=len(params),
            coreid_offset=spec.coreid_offset,
            timeout_ms=spec.timeout_ms,
            trace=1 if spec.trace else 0,
        )

    def _collect(self, name: str, handle: int) -> LaunchResult:
        lib = self._lib
        h = ctypes.c_void_p(handle)
        try:
            events = []
            worker, begin, end = ctypes.c_uint32(), ctypes.c_uint64(), ctypes.c_uint64()
            ev_name, category = ctypes.c_char_p(), ctypes.c_char_p()
            for i in range(lib.sk_twin_result_event_count(h)):
                lib.sk_twin_result_event(h, i, worker, begin, end, ev_name, category)
                events.append(Event(worker.value, begin.value, end.value,
                                    ev_name.value.decode(errors="replace"), category.value.decode()))
            return LaunchResult(
                name=name,
                status=lib.sk_twin_result_status(h),
                error=lib.sk_twin_result_error(h).decode(errors="replace"),
                residual=lib.sk_twin_result_residual(h).decode(errors="replace"),
                wall_ns=lib.sk_twin_result_wall_ns(h),
                start_ns=lib.sk_twin_result_start_ns(h),
                counters={n: lib.sk_twin_result_counter(h, i) for i, n in enumerate(self.counter_names)},
                workers=[lib.sk_twin_result_worker_label(h, i).decode()
                         for i in range(lib.sk_twin_result_worker_count(h))],
                events=events,
            )
        finally:
            lib.sk_twin_result_free(h)

    def launch(self, spec: LaunchSpec, *, check: bool = True) -> LaunchResult:
        """Runs one launch; raises TwinLaunchError on failure unless check=False."""
        keep: list = []
        desc = self._struct(spec, keep)
        handle = ctypes.c_void_p()
        self._lib.sk_twin_launch(ctypes.byref(desc), ctypes.byref(handle))
        result = self._collect(spec.name, handle.value)
        if check and not result.ok:
            raise TwinLaunchError(result)
        return result

    def run_tiling(self, call: TilingCall, *, timeout_ms: int = 0, where: str = "") -> tuple[int, int]:
        """Calls a host tiling function (the unfused run, between launches) on a thread of the twin's, caught
        as a tiling task's is (a crash, an exception, no return within the watchdog's time, a key the kernel
        lacks, a block dim out of range: an SkError naming it); (key, block dim). where: the launch, for errors."""
        keep: list = []
        task = _task_struct(TwinTask(name=call.label, wait_word=None, release_word=-1, tiling=call), keep)
        handle = ctypes.c_void_p()
        status = self._lib.sk_twin_run_tiling(ctypes.byref(task), timeout_ms, ctypes.byref(handle))
        h = ctypes.c_void_p(handle.value)
        try:
            error = self._lib.sk_twin_result_error(h).decode(errors="replace")
        finally:
            self._lib.sk_twin_result_free(h)
        if status != 0:
            raise SkError(f"tiling failed ({STATUS_NAMES.get(status, status)}): {error}",
                          where=f"{where}: {call.label}" if where else call.label)
        ctx = task.tiling_ctx.contents
        return ctx.tiling_key, ctx.block_dim

    def launch_tasks(self, spec: LaunchSpec, words: Sequence[TwinWord], tasks: Sequence[TwinTask], *,
                     check: bool = True, where: str = "") -> LaunchResult:
        """One launch with its external tasks as threads (sk_twin_launch_tasks). where: the launch, for errors."""
        keep: list = []
        desc = self._struct(spec, keep)
        cwords = (_Word * max(1, len(words)))(*(
            _Word(addr=w.address, writer=1 if w.by_task else 0, what=w.what.encode()) for w in words))
        carr = (_Task * max(1, len(tasks)))(*(_task_struct(t, keep) for t in tasks))
        keep.extend([cwords, carr])
        handle = ctypes.c_void_p()
        self._lib.sk_twin_launch_tasks(ctypes.byref(desc), cwords, len(words), carr, len(tasks),
                                       ctypes.byref(handle))
        result = self._collect(spec.name, handle.value)
        if check and not result.ok:
            raise TwinLaunchError(result, where)
        return result

    def run_sequence(self, specs: Sequence[LaunchSpec], *, check: bool = True, what: str = "", first: int = 0,
                     total: int | None = None) -> list[LaunchResult]:
        """Runs launches back to back (one stream); stops at the first failure.

        what: the run's name for errors ("separate run"), which add "launch i of n" (specs being launches
        first + 1.. of total when part of a longer run).
        """
        keep: list = []
        descs = (_Launch * max(1, len(specs)))(*(self._struct(s, keep) for s in specs))
        handles = (ctypes.c_void_p * max(1, len(specs)))()
        self._lib.sk_twin_run_sequence(descs, len(specs), handles)
        results = [self._collect(s.name, h) for s, h in zip(specs, handles) if h]
        if check:
            for i, result in enumerate(results):
                if not result.ok:
                    launch = f"launch {first + i + 1} of {len(specs) if total is None else total}"
                    raise TwinLaunchError(result, f"{what}, {launch}" if what else launch)
        return results


def chrome_trace(results: Sequence[LaunchResult], process_names: Sequence[str] | None = None) -> dict:
    """Chrome trace (Perfetto-viewable) of launches: one process per launch,
    one thread per worker, complete events in microseconds from the first
    launch's start."""
    if not results:
        return {"traceEvents": [], "displayTimeUnit": "ns"}
    origin = min(r.start_ns for r in results)
    events: list[dict] = []
    for pid, result in enumerate(results):
        pname = process_names[pid] if process_names else result.name
        events.append({"ph": "M", "pid": pid, "tid": 0, "name": "process_name", "args": {"name": pname}})
        for tid, label in enumerate(result.workers):
            events.append({"ph": "M", "pid": pid, "tid": tid, "name": "thread_name", "args": {"name": label}})
            events.append({"ph": "M", "pid": pid, "tid": tid, "name": "thread_sort_index", "args": {"sort_index": tid}})
        for ev in result.events:
            events.append({
                "ph": "X",
                "pid": pid,
                "tid": ev.worker,
                "name": ev.name,
                "cat": ev.category,
                "ts": round((ev.begin_ns - origin) / 1000.0, 3),
                "dur": round((ev.end_ns - ev.begin_ns) / 1000.0, 3),
            })
    return {"traceEvents": events, "displayTimeUnit": "ns"}
