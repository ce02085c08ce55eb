"""An operator repository checkout as the ADK builds it (superkernel-facts.md §17): its operators, their kernels.

An operator is a folder holding `op_host/config/<soc>/<op>_binary.json` (the binary variants built for that SoC)
and `op_kernel/<op>.cpp` (its kernel). The op build stages every operator's `op_kernel/` side by side as `<op>/`,
because kernels include `../<other_op>/x.h` (sk.twin.survey stages them the same way).

The twin also needs what the op build generates from the host side: the kernel-side tiling structs of
`BEGIN_TILING_DATA_DEF` blocks in `op_host/` headers and the struct `REGISTER_TILING_DATA_CLASS(Op[_key], S)` names
for `GET_TILING_DATA` (sk_twin_tiling.h). `tiling_prelude` writes them as a header compiled in front of the kernel.
"""

from __future__ import annotations

import functools
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

from sk.base.errors import SkError
from sk.engine import cannop

KERNEL_SUFFIXES = (".cpp", ".h", ".hpp", ".cc", ".cce", ".inl")


@dataclass(frozen=True)
class Operator:
    """One operator of a repository: name (its folder), folder, kernel (its source in op_kernel/, where the op build
    finds it: sk.engine.cannop.kernel_source), binary_configs (`<name>_binary.json` first, the one the op build
    reads), entry (the kernel's __global__ function)."""

    name: str
    folder: Path
    kernel: Path
    binary_configs: tuple
    entry: str = ""


def find_operators(root: Path, soc: str) -> list:
    """Every operator under root with a binary config for soc, sorted by name then folder.

    An operator without its kernel source is listed with kernel set to that (missing) path, so a survey reports it
    instead of dropping it.
    """
    root = Path(root)
    if not root.is_dir():
        raise SkError("not a folder", where="operator repository", value=str(root),
                      allowed="the root of an operator repository checkout (op folders with op_host/ and op_kernel/)")
    found = {}
    for cfg in sorted(root.rglob(f"op_host/config/{soc}/*_binary.json")):
        folder = cfg.parents[3]
        if any(part.startswith(".") for part in folder.relative_to(root).parts):
            continue
        found.setdefault(folder, []).append(cfg)
    ops = []
    for f, cfgs in found.items():
        src = cannop.kernel_source(str(f), soc)
        # The op build reads `<op>_binary.json` (ops-nn cmake/func.cmake); another `*_binary.json` beside it (a copy
        # named after the kernel file) only after it.
        cfgs = sorted(cfgs, key=lambda c: c.name != f"{f.name}_binary.json")
        ops.append(Operator(f.name, f, f / "op_kernel" / src.src, tuple(cfgs), src.entry))
    return sorted(ops, key=lambda o: (o.name, str(o.folder)))


def find_operators_under(root: Path, soc: str, under=()) -> list:
    """find_operators over root/<sub> for each sub of under (all of root when under is empty)."""
    root = Path(root)
    if not root.is_dir():
        raise SkError("not a folder", where="operator repository", value=str(root),
                      allowed="the root of an operator repository checkout (op folders with op_host/ and op_kernel/)")
    for sub in under:
        if not (root / sub).is_dir():
            raise SkError("not a folder of the repository", where="--under", value=sub,
                          allowed=f"a folder under {root}")
    return [op for d in ([root / u for u in under] or [root]) for op in find_operators(d, soc)]


_INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


_DEPENDS = re.compile(r"\bset\s*\(\s*(\$\{CURRENT_DIR_NAME\}|\w+)_depends\s+([^)]*)\)", re.I)


def op_depends(op: Operator, root: Path) -> list:
    """The folders of the repository the op build stages with op (ops-transformer: `set(<op>_depends mc2/common
    mc2/3rd ...)` in the op's CMakeLists.txt, add_ops_src_copy copying each to `<staging>/<its name>/`), in order;
    names that are no folder of root are left out, as the op build leaves them. The line may sit in op_host/'s
    CMakeLists.txt instead (matmul_all_reduce's): the op build reads both."""
    paths = [p for p in (op.folder / "CMakeLists.txt", op.folder / "op_host" / "CMakeLists.txt") if p.is_file()]
    text = "\n".join(re.sub(r"#[^\n]*", "", p.read_text(encoding="utf-8", errors="replace")) for p in paths)
    found = []
    for m in _DEPENDS.finditer(text):
        if m.group(1) not in ("${CURRENT_DIR_NAME}", op.name):
            continue
        for word in m.group(2).split():
            if word in ("PARENT_SCOPE", "CACHE", "INTERNAL") or word.startswith('"'):
                break
            folder = Path(root) / word
            if folder.is_dir() and folder not in found:
                found.append(folder)
    return found




def staged_folders(root: Path) -> dict:
    """Every op_kernel/ of the repository by the name the op build stages it under (its op's folder name)."""
    found = {}
    for p in sorted(Path(root).rglob("op_kernel")):
        if p.is_dir() and not any(x.startswith(".") for x in p.relative_to(root).parts):
            found.setdefault(p.parent.name, p)
    return found


def _staged_name(path: Path, staged: dict):
    """(op, path inside its op_kernel/) of a file under one of the staged folders, else None."""
    for name, folder in staged.items():
        try:
            # abspath, not resolve: under Bazel's runfiles every file is a link into the source tree.
            return name, Path(os.path.abspath(path)).relative_to(os.path.abspath(folder))
        except ValueError:
            continue
    return None


def include_closure(entry: Path, staged: dict, include_dirs=()) -> list:
    """The quoted includes of entry, transitively, that resolve to files: beside the including file as the op build
    stages it (so `../other_op/x.h` reaches other_op's op_kernel/, staged maps op names to them), else in
    include_dirs."""
    seen, order, todo = set(), [], [Path(entry)]
    while todo:
        path = todo.pop()
        key = os.path.normpath(os.path.abspath(path))
        if key in seen or not path.is_file():
            continue
        seen.add(key)
        order.append(path)
        where = _staged_name(path, staged)
        text = path.read_text(encoding="utf-8", errors="replace")
        for name in _INCLUDE.findall(text):
            cands = []
            if where is not None:
                virtual = os.path.normpath(os.path.join(where[0], str(where[1].parent), name))
                op, _, rest = virtual.partition(os.sep)
                if op in staged and rest and not virtual.startswith(".."):
                    cands.append(staged[op] / rest)
            else:
                cands.append(path.parent / name)
            cands += [Path(d) / name for d in include_dirs]
            hit = next((c for c in cands if c.is_file()), None)
            if hit is not None:
                todo.append(hit)
    return order


_BLOCK = re.compile(r"^[ \t]*BEGIN_TILING_DATA_DEF\s*\(\s*(\w+)\s*\)(.*?)END_TILING_DATA_DEF\s*;?", re.M | re.S)
_REGISTER = re.compile(r"REGISTER_TILING_DATA_CLASS\s*\(\s*(\w+)\s*,\s*(\w+)\s*\)")
_STRUCT_FIELD = re.compile(r"TILING_DATA_FIELD_DEF_STRUCT\s*\(\s*(\w+)\s*,")
# Constants the blocks may use for array sizes: `constexpr T NAME = ...;`, `const T NAME = ...;`, `#define NAME v`.
# At namespace scope only (unindented): a function's local constants are not the struct's.
_CONST = re.compile(r"^(?:static\s+)?(?:constexpr|const)\s+[\w:]+\s+(\w+)\s*=\s*[^;{}]+;", re.M)
_DEFINE = re.compile(r"^[ \t]*#\s*define\s+(\w+)[ \t]+[^\n\\]+$", re.M)


_HOST_SUFFIXES = (".h", ".hpp", ".cpp", ".cc")


# The per-architecture folder of Ascend 950's host tiling (op_host/CMakeLists.txt: SUPPORT_TILING_DIR); the other
# SoCs' is arch22/arch32 or op_host/ itself.
ARCH_950_DIR, SOC_950 = "arch35", "ascend950"


def tiling_registry(root: Path, soc: str = "ascend910b") -> dict:
    """Every op type a REGISTER_TILING_DATA_CLASS of the repository's op_host/ folders names (`Op` of `Op_7` too),
    with the files that register it, for soc (another SoC's architecture folder is not its tiling library's).

    The op build links every op's host tiling into one library, so an op's tiling may be registered in a shared
    folder its own op_host/ never includes (foreach_sqrt's in foreach_utils/op_host/).
    """
    found = {}
    for host in sorted(Path(root).rglob("op_host")):
        if not host.is_dir() or any(x.startswith(".") for x in host.relative_to(root).parts):
            continue
        for path in sorted(host.rglob("*")):
            if path.suffix not in _HOST_SUFFIXES or not path.is_file():
                continue
            if (ARCH_950_DIR in path.relative_to(host).parts) != (soc == SOC_950):
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
            if "REGISTER_TILING_DATA_CLASS" not in text:
                continue
            for m in _REGISTER.finditer(re.sub(r"//[^\n]*", "", text)):
                files = found.setdefault(re.sub(r"_\d+$", "", m.group(1)), [])
                if path not in files:
                    files.append(path)
    return found


def _host_files(op: Operator, registry=None) -> list:
    """op_host/'s sources, the files of the repository that register the op's tiling (registry, tiling_registry's),
    then the headers those include from elsewhere in the repository (transitively).

    The host tiling library compiles an op's op_host/ sources with their includes, so a struct or registration in a
    shared folder (`../../foreach_utils/op_host/foreach_tiling_def.h`) is the op's as much as one in its own folder.
    Includes resolve beside the including file, else from the op's category folder (the one holding its sibling ops,
    on the op build's include path: `mat_mul_v3/op_host/op_tiling/matmul_v3_tiling.h`), else from the repository's
    host include path (host_include_dirs: mc2's `tiling/mc2_tiling_struct.h` in mc2/common/inc); the toolkit's own
    headers are not the repository's.
    """
    host = op.folder / "op_host"
    files = [p for p in sorted(host.rglob("*")) if p.suffix in _HOST_SUFFIXES and p.is_file()] if host.is_dir() else []
    # Per-architecture folders other than the 910B's (arch22/arch32 hold it, arch35 is Ascend 950) go last, so a
    # struct defined for both takes the 910B definition; the op's own files before other folders' registrations.
    files = sorted(files, key=lambda p: (ARCH_950_DIR in p.parts, str(p)))
    files += [p for p in (registry or {}).get(op_type(op), ()) if p not in files]
    seen = {os.path.normpath(os.path.abspath(p)) for p in files}
    dirs = [op.folder.parent, *host_include_dirs(op.folder)]
    todo, extra = list(files), []
    while todo:
        path = todo.pop(0)
        for name in _INCLUDE.findall(path.read_text(encoding="utf-8", errors="replace")):
            cand = next((c for c in (path.parent / name, *(d / name for d in dirs)) if c.is_file()), None)
            if cand is None:
                continue
            key = os.path.normpath(os.path.abspath(cand))
            if key not in seen and cand.suffix in (".h", ".hpp"):
                seen.add(key)
                extra.append(cand)
                todo.append(cand)
    return files + extra


_ROOT_VAR = re.compile(r"^\s*set\s*\(\s*(\w+)\s+\$\{CMAKE_CURRENT_SOURCE_DIR\}\s*\)", re.M)
_TILING_INCLUDE = re.compile(r"^\s*set\s*\(\s*OP_TILING_INCLUDE\b([^)]*)\)", re.M)


def host_include_dirs(folder: Path) -> list:
    """The repository's own folders on its op build's host tiling include path, in order, for an op folder: the
    `${<ROOT>_DIR}/...` entries of `set(OP_TILING_INCLUDE ...)` in cmake/variables.cmake of the nearest folder above
    whose CMakeLists.txt sets `<ROOT>_DIR` to itself (ops-transformer: mc2/common/inc, mc2/3rd, ...). Folders that do
    not exist are left out (the toolkit's and the build tree's); [] when no such repository holds the folder."""
    return [Path(p) for p in _host_include_dirs(os.path.abspath(folder))]


@functools.lru_cache(maxsize=None)
def _host_include_dirs(folder: str) -> tuple:
    for root in Path(folder).parents:
        top, variables = root / "CMakeLists.txt", root / "cmake" / "variables.cmake"
        if not (top.is_file() and variables.is_file()):
            continue
        var = _ROOT_VAR.search(re.sub(r"#[^\n]*", "", _read(top)))
        block = _TILING_INCLUDE.search(re.sub(r"#[^\n]*", "", _read(variables)))
        if var is None or block is None:
            continue
        found = []
        for word in block.group(1).split():
            m = re.fullmatch(r"\$\{" + re.escape(var.group(1)) + r"\}(/[^$]*)?", word)
            d = root / (m.group(1) or "/").strip("/") if m else None
            if d is not None and d.is_dir() and str(d) not in found:
                found.append(str(d))
        return tuple(found)
    return ()


def op_type(op: Operator) -> str:
    """The op's type: its binary config's op_type, else its folder name in CamelCase (foreach_log10: ForeachLog10)."""
    for cfg in op.binary_configs:
        try:
            value = json.loads(Path(cfg).read_text(encoding="utf-8")).get("op_type")
        except (OSError, ValueError, AttributeError):
            continue
        if isinstance(value, str) and value:
            return value
    return "".join(part[:1].upper() + part[1:] for part in op.name.split("_"))


_DEF_PARAM = re.compile(r'\bthis\s*->\s*(Input|Output)\s*\(\s*"(\w+)"\s*\)')


def def_param_names(op: Operator):
    """(input names, output names) in the order the op definition (op_host/<op>_def.cpp: `this->Input("x")`) declares
    them, or None without one. The ADK names a variant's -DDTYPE_<P> defines after the definition's parameter at each
    index, whatever name the binary config gives it (soft_plus_v2's config says `y` where the definition says `z`).
    """
    names = None
    for path in sorted((op.folder / "op_host").glob("*_def.cpp")):
        text = re.sub(r"//[^\n]*", "", path.read_text(encoding="utf-8", errors="replace"))
        found = _DEF_PARAM.findall(text)
        if found:
            if names is not None:
                return None  # two definitions: which one is this op's is not knowable here
            names = ([n for k, n in found if k == "Input"], [n for k, n in found if k == "Output"])
    return names


_KERNEL_STRUCT = re.compile(r"\bstruct\s+(?:__attribute__\s*\(\(.*?\)\)\s*)?(\w+)\s*\{")


def kernel_structs(op: Operator) -> set:
    """Names of the structs op's own op_kernel/ sources define (an arch35/ folder only for an Ascend 950 config), and
    the files they include through the repository's layout (`../../other_op/op_kernel/x.h`,
    `../../common/inc/kernel/x.h`), transitively."""
    kernel = op.folder / "op_kernel"
    for_950 = any(SOC_950 in Path(c).parts for c in op.binary_configs)
    names = set()
    if not kernel.is_dir():
        return names
    todo = [p for p in sorted(kernel.rglob("*")) if p.suffix in KERNEL_SUFFIXES and p.is_file()
            and (for_950 or ARCH_950_DIR not in p.relative_to(kernel).parts)]
    seen = set()
    while todo:
        path = todo.pop(0)
        key = os.path.normpath(os.path.abspath(path))
        if key in seen:
            continue
        seen.add(key)
        text = re.sub(r"//[^\n]*", "", path.read_text(encoding="utf-8", errors="replace"))
        names.update(_KERNEL_STRUCT.findall(text))
        for inc in _INCLUDE.findall(text):
            # Out of this op's op_kernel/ (its own files are all read above, arch35/ by the rule): another op's
            # op_kernel/, or a shared kernel folder (mc2's `../../common/inc/kernel/mc2_tiling_struct.h`).
            cand = Path(os.path.normpath(path.parent / inc))
            other = kernel.resolve() not in cand.resolve().parents
            if other and (for_950 or ARCH_950_DIR not in cand.parts) and cand.suffix in KERNEL_SUFFIXES \
                    and cand.is_file():
                todo.append(cand)
    return names


def tiling_prelude(op: Operator, registry=None) -> str:
    """The header the op build would generate for op's kernel: its host tiling structs and registrations (registry:
    tiling_registry's, for the ones in other folders).

    Structs are emitted in dependency order (a TILING_DATA_FIELD_DEF_STRUCT field's struct first), each once.
    """
    blocks, registered, constants = {}, [], {}
    # A struct the kernel defines itself (REGISTER_TILING_DEFAULT(S) with its own `struct S {...}`) is the kernel's:
    # the op build does not hand it a second definition, so the prelude neither defines nor registers it.
    kernel_own = kernel_structs(op)
    for path in _host_files(op, registry):
        text = path.read_text(encoding="utf-8", errors="replace")
        text = re.sub(r"//[^\n]*", "", text)
        for m in _BLOCK.finditer(text):
            blocks.setdefault(m.group(1), m.group(0).rstrip().rstrip(";") + ";")
        for rx in (_CONST, _DEFINE):
            for m in rx.finditer(text):
                constants.setdefault(m.group(1), m.group(0).strip())
        for m in _REGISTER.finditer(text):
            registered.append((m.group(1), m.group(2),
                               Path(os.path.abspath(op.folder)) in Path(os.path.abspath(path)).parents))
    out, done = [], set()
    # A shared header registers the struct of many ops: the op's own type's registrations, when there are any,
    # else those of its own folder's files (never another folder's registration of another op's type).
    mine = op_type(op)
    own = [r for r in registered if re.fullmatch(re.escape(mine) + r"(?:_\d+)?", r[0])]
    own_structs = {r[1] for r in own}

    def kernels(name, path=()):
        """Whether the kernel defines name or a struct a field of name's (transitively) has: then the prelude,
        compiled in front of the kernel, cannot define name."""
        if name in kernel_own:
            return True
        return name in blocks and name not in path and any(
            kernels(dep, path + (name,)) for dep in _STRUCT_FIELD.findall(blocks[name]))

    def emit(name, path=(), mine=False):
        # The structs the op's own type registers come with all their fields' structs (a kernel struct of the
        # same name may sit in a namespace of its own: conv3d_v2's Ops::NN::Conv3dV2::TConv3DTiling); any other
        # struct only where the kernel defines neither it nor one it needs (mc2's L2cacheUseInfo).
        if name in done or name not in blocks or name in path or (not mine and kernels(name)):
            return
        for dep in _STRUCT_FIELD.findall(blocks[name]):
            emit(dep, path + (name,), mine)
        done.add(name)
        out.append(blocks[name])

    for name in blocks:
        if name not in kernel_own:
            emit(name, mine=name in own_structs)
    # The constants the blocks use, and the constants those use, in their files' order.
    used, todo = set(), set(re.findall(r"\b[A-Za-z_]\w*", "\n".join(out)))
    while todo:
        name = todo.pop()
        if name in used or name in blocks:
            continue
        used.add(name)
        if name in constants:
            todo |= set(re.findall(r"\b[A-Za-z_]\w*", constants[name].split("=", 1)[-1]))
    consts = [text for name, text in constants.items() if name in used]
    lines = [f"// Generated by sk from {op.name}/op_host: the kernel-side tiling structs of the op build.",
             "#pragma once", '#include "kernel_tiling/kernel_tiling.h"', *consts, *out]
    default, keyed = None, {}
    for op_type_, struct, _ in own or [r for r in registered if r[2]]:
        if struct not in done:
            continue
        key = re.fullmatch(r"\w*?_(\d+)", op_type_)
        if key:
            keyed.setdefault(int(key.group(1)), struct)
        elif default is None:
            default = struct
    if default:
        lines.append(f"template <> struct sk_twin::OpTilingDefault<0> {{ using type = {default}; }};")
    for key in sorted(keyed):
        lines.append(f"template <> struct sk_twin::OpTilingForKey<{key}UL> {{ using type = {keyed[key]}; }};")
    return "\n".join(lines) + "\n"


# sk_cann_op stages each op folder's op_kernel/ as `<stage>/<op>/` (what kernels include) and the op
# folders themselves, op_kernel/ and op_host/, as `<stage>/_sk_ops/<op>/` (rules/private/cann_op.bzl),
# so the prelude the op build would generate can be made from the staged files.
STAGED_OPS = "_sk_ops"


def staged_prelude(kernel_src: str, binary_config: str | None = None) -> str:
    """The tiling prelude (tiling_prelude's) of the op whose staged kernel source is kernel_src, from the
    op folders staged beside it (STAGED_OPS), or "" when the kernel is not staged that way or the op's
    op_host/ defines no tiling struct."""
    here = Path(os.path.abspath(kernel_src)).parent
    for folder in (here, *here.parents)[:4]:  # the kernel source sits at most a few folders into op_kernel/
        ops = folder.parent / STAGED_OPS
        if (ops / folder.name / "op_host").is_dir():
            op = Operator(folder.name, ops / folder.name, Path(kernel_src),
                          (binary_config,) if binary_config else ())
            text = tiling_prelude(op, tiling_registry(ops))
            return text if _BLOCK.search("\n".join(_read(p) for p in _host_files(op, None))) else ""
    return ""


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8", errors="replace")
