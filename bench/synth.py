"""Synthetic SuperKernels: N sub-kernels of mixed kernel types, built with the real `sk subkernel` steps.

Sub-kernel i is an op instance named `syn<i>` (a network's op: its own
compiled object, its own SK-mode function) of one of a few synthetic kernel
sources; the kernel types cycle through every type a SuperKernel can hold, the
code size cycles through SIZES statement counts. Its archive comes from
`sk subkernel compile` (shared by the sub-kernels with the same source, type,
block dim and scope location), `sk subkernel wrap` and `sk subkernel pack`,
exactly as a `sk_sub_kernel` target builds it.

These archives are the *inputs* of the fusion being measured, so they are
built once and cached by content (sources, argv, the sk modules and runtime
headers that shape them) under the cache directory; a rebuild happens only
when one of those changes.
"""

from __future__ import annotations

import concurrent.futures
import hashlib
import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

KERNEL_TYPES = ("AIV_ONLY", "AIC_ONLY", "MIX_AIC_1_2", "MIX_AIV_1_0", "MIX_AIC_1_1", "MIX_AIC_1_0")
BLOCK_DIMS = {"AIV_ONLY": 40, "AIC_ONLY": 20, "MIX_AIC_1_2": 20, "MIX_AIV_1_0": 32, "MIX_AIC_1_1": 16,
              "MIX_AIC_1_0": 24}
SIZES = (4, 16, 48, 8, 32)  # statements in a kernel body: a few hundred bytes to a few KB of text
PARAMS = ("x", "y")
SPLIT_MODE = 4
OPTIONS = f"split-mode={SPLIT_MODE}"
# What an SK-mode sub-kernel archive depends on besides its own argv.
SK_PACKAGES = ("base", "binfmt", "build", "engine/options.py", "cli/commands/subkernel.py")


@dataclass(frozen=True)
class SubKernel:
    index: int
    name: str  # syn<i>, the op's SK-mode base name
    kernel_type: str
    size: int  # statements in the source body
    block_dim: int
    loc: str  # start | middle | end

    @property
    def stem(self) -> str:
        return f"{self.name}_{self.loc}"

    @property
    def entry(self) -> str:
        return f"syn_{self.kernel_type.lower()}_{self.size}"


def sub_kernels(count: int) -> list[SubKernel]:
    out = []
    for i in range(count):
        kt = KERNEL_TYPES[i % len(KERNEL_TYPES)]
        loc = "start" if i == 0 else "end" if i == count - 1 else "middle"
        out.append(SubKernel(i, f"syn{i:04d}", kt, SIZES[i % len(SIZES)], BLOCK_DIMS[kt], loc))
    return out


def kernel_source(kernel_type: str, size: int) -> str:
    """A small Ascend C kernel: a chain of dependent float ops, `size` stores long."""
    lines = [
        f"// Synthetic bench kernel: {kernel_type}, {size} statements.",
        '#include "kernel_operator.h"',
        "",
        f'extern "C" __global__ __aicore__ void syn_{kernel_type.lower()}_{size}(GM_ADDR x, GM_ADDR y) {{',
        f"    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_{kernel_type});",
        "    __gm__ const float* xs = (__gm__ const float*)x;",
        "    __gm__ float* ys = (__gm__ float*)y;",
        f"    const int64_t base = AscendC::GetBlockIdx() * {size};",
        "    float acc = xs[base];",
    ]
    for k in range(size):
        lines.append(f"    acc = acc * {1.0 + k / 64.0:.6f}f + xs[base + {k}];")
        lines.append(f"    ys[base + {k}] = acc;")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _digest(*parts) -> str:
    h = hashlib.sha256()
    for part in parts:
        data = part if isinstance(part, bytes) else json.dumps(part, sort_keys=True).encode()
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()[:24]


def _tree_digest(sk_dir: Path, include_dir: Path) -> str:
    files = [f for p in SK_PACKAGES for f in ([sk_dir / p] if p.endswith(".py") else sorted((sk_dir / p).glob("*.py")))]
    files += sorted(include_dir.glob("*.h"))
    return _digest(*[str(f.relative_to(sk_dir.parent)).encode() + b"\0" + f.read_bytes() for f in files])


@dataclass(frozen=True)
class Tools:
    compiler: str
    ld: str
    objcopy: str


class Builder:
    """Builds (or finds in the cache) the sub-op archive + JSON of each synthetic sub-kernel."""

    def __init__(self, cache_dir: Path, tools: Tools, jobs: int | None = None):
        from sk.twin import binding as twin

        self.cache = Path(cache_dir)
        self.tools = tools
        self.include = twin.INCLUDE_DIR
        self.jobs = jobs or os.cpu_count() or 1
        sk_dir = Path(twin.__file__).resolve().parent.parent
        self.salt = _tree_digest(sk_dir, self.include) + _digest(Path(tools.compiler).name, Path(tools.ld).name)
        self.built = 0  # archives built (not found in the cache) by the last build()

    def _common(self, s: SubKernel) -> list[str]:
        """What a sub-kernel's objects depend on besides its source (part of the cache key)."""
        return ["--toolchain", "host", "--kernel-type", s.kernel_type, "--block-dim", str(s.block_dim),
                "--options", OPTIONS, "--op-type", self._op_type(s), "--loc", s.loc]

    @staticmethod
    def _op_type(s: SubKernel) -> str:
        return f"Syn{s.kernel_type.title().replace('_', '')}"

    def _kernel_args(self, s: SubKernel) -> dict:
        from sk.engine import kernel_types

        return dict(kt=kernel_types.lookup(s.kernel_type, "--kernel-type"), block_dim=s.block_dim, options=OPTIONS,
                    op_type=self._op_type(s), loc=s.loc)

    def _kernel_obj(self, s: SubKernel) -> Path:
        src_text = kernel_source(s.kernel_type, s.size)
        common = self._common(s)
        key = _digest(self.salt, src_text, common)
        out = self.cache / "kernels" / f"{key}.o"
        if out.exists() and out.with_suffix(".sync.json").exists():
            return out
        d = self.cache / "src"
        d.mkdir(parents=True, exist_ok=True)
        src = d / f"{key}.cpp"
        src.write_text(src_text)
        from sk.toolflow import subkernel, toolargv

        subkernel.compile_source(toolargv.Tools("host", compiler=self.tools.compiler), str(src), str(out),
                                 include_dirs=[str(self.include)], sync_out=str(out.with_suffix(".sync.json")),
                                 **self._kernel_args(s))
        return out

    def _archive(self, s: SubKernel, kernel_obj: Path) -> Path:
        """<cache>/subs/<key>/<stem>.o (+ .json); key covers everything the archive is made from."""
        common = self._common(s)
        key = _digest(self.salt, kernel_obj.read_bytes(), common, s.entry, s.name)
        d = self.cache / "subs" / key
        out = d / f"{s.stem}.o"
        if out.exists() and (d / f"{s.stem}.json").exists():
            return out
        tmp = self.cache / "subs" / f".{key}.tmp"
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        from sk.toolflow import subkernel, toolargv

        wobj = tmp / "wrapper.o"
        scan = str(kernel_obj.with_suffix(".sync.json"))
        subkernel.wrap(toolargv.Tools("host", compiler=self.tools.compiler), entry=s.entry, name=s.name,
                       params=list(PARAMS), kernel_obj=str(kernel_obj), out=str(wobj),
                       include_dirs=[str(self.include)], sync_scan=scan, **self._kernel_args(s))
        subkernel.pack(toolargv.Tools("host", linker=self.tools.ld, objcopy=self.tools.objcopy),
                       kernel_obj=str(kernel_obj), wrapper_obj=str(wobj), entry=s.entry, name=s.name,
                       params=list(PARAMS), out_obj=str(tmp / f"{s.stem}.o"), out_json=str(tmp / f"{s.stem}.json"), sync_scan=scan,
                       **self._kernel_args(s))
        wobj.unlink()
        shutil.rmtree(d, ignore_errors=True)
        os.replace(tmp, d)
        self.built += 1
        return out

    def build(self, subs: list[SubKernel], log=print) -> list[Path]:
        """The archive of each sub-kernel, in order (built in parallel where missing)."""
        self.built = 0
        kernel_objs: dict = {}
        # Kernel objects first: many sub-kernels share one.
        distinct = {}
        for s in subs:
            distinct.setdefault((s.kernel_type, s.size, s.block_dim, s.loc), s)
        with concurrent.futures.ThreadPoolExecutor(self.jobs) as pool:
            objs = dict(zip(distinct, pool.map(self._kernel_obj, distinct.values())))
            for s in subs:
                kernel_objs[s.index] = objs[(s.kernel_type, s.size, s.block_dim, s.loc)]
            futures = [pool.submit(self._archive, s, kernel_objs[s.index]) for s in subs]
            done = 0
            out = []
            for f in futures:
                out.append(f.result())
                done += 1
                if done % 200 == 0:
                    log(f"  sub-kernels ready: {done}/{len(subs)}")
        return out


def write_kernel_infos(root: Path, name: str, subs: list[SubKernel], archives: list[Path]) -> Path:
    """A fusion input directory: subs/<stem>.o|.json copied from the cache, kernel_infos.json."""
    d = root / "subs"
    shutil.rmtree(root, ignore_errors=True)
    d.mkdir(parents=True)
    op_list = []
    for s, archive in zip(subs, archives):
        for suffix in (".o", ".json"):
            shutil.copyfile(archive.with_suffix(suffix), d / f"{s.stem}{suffix}")
        op_list.append({"bin_path": f"subs/{s.stem}.o", "json_path": f"subs/{s.stem}.json", "stream_id": 0,
                        "task_type": "normal"})
    path = root / "kernel_infos.json"
    path.write_text(json.dumps({"kernel_name": name, "super_kernel_options": OPTIONS, "op_list": op_list},
                               indent=1) + "\n")
    return path
