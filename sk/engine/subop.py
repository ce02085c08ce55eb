"""The inputs of a fusion: the `kernel_infos` document and each sub-op's kernel JSON.

`kernel_infos` (upstream `super_kernel.compile`'s first argument, facts §2.1) plus
the SK name:
    {"kernel_name": "te_superkernel_x",
     "super_kernel_options": "k=v:k=v",            # optional, default ""
     "op_list": [{"bin_path": "a.o", "json_path": "a.json", "stream_id": 0,
                  "send_event_list": [100],          # optional, default []
                  "recv_event_list": [],             # optional, default []
                  "task_type": "normal"|"dynamic",   # optional, default "normal"
                  "tensors": {"reads": ["x"], "writes": ["y"]}},  # optional, ours
                 ...]}
Relative paths resolve against the document's directory; `obj_files` inside a
sub-op JSON resolve against that JSON's directory (upstream writes them
absolute). When `bin_path` is an `ar` archive (upstream's format), objects are
looked up in it by file name; otherwise they are read from disk.

`tensors` is our extension (upstream does not read it; we validate it): the
names of the tensors the op instance reads and writes, which sync-elision=1
needs (sk.engine.elision). A name stands for one memory region: tensors that share
memory (GE memory reuse, a workspace bound to a shared buffer) must be
declared under the same name. A workspace counts as written by its op; a
private one may be left out or named uniquely.

A sub-op JSON is a standard Ascend kernel meta plus the SK fields of facts §2.3.
Only the fields upstream reads are validated and kept; every failure is an
SkError naming the op (index and kernelName), the file and the JSON field.
Our `sk_archive` field (written by `sk subkernel pack`) holds the facts of
the archive's objects keyed to its sha256; when it matches the bin, the
objects are not parsed again (objfacts.objects_from_facts).
"""

from __future__ import annotations

import dataclasses
import json
import os
import re

from sk.binfmt import ar, objfacts
from sk.base import infile, jsonload, numbers
from sk.base.errors import SkError
from sk.engine import kernel_types
from sk.engine.platforms import Platform, get_platform

KERNEL_TYPES = kernel_types.NAMES
TASK_TYPES = ("normal", "dynamic")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_TENSOR_NAME = re.compile(r"[!-~]+")
_OP_KEYS = ("bin_path", "json_path", "stream_id", "send_event_list", "recv_event_list", "task_type", "tensors")
_TENSOR_KEYS = ("reads", "writes")
_TOP_KEYS = ("kernel_name", "super_kernel_options", "op_list")


@dataclasses.dataclass(frozen=True)
class ArchFunc:
    arch: str          # "cube" or "vec"
    key: str           # key in sub_operator_kernel_name ("AiCore", "dav-<chip>-cube", ...)
    func_name: str
    object: str        # obj_files as given when relative, else its file name
    text_size: int
    _path: str = dataclasses.field(default="", repr=False, compare=False)  # obj_files exactly as given


@dataclasses.dataclass(frozen=True)
class DynamicKey:
    tiling_key: int
    kernel_type: str
    funcs: tuple       # ((arch, symbol), ...) in the arch_keys order of its kernel type


@dataclasses.dataclass(frozen=True)
class TensorAccess:
    """The tensors an op instance declares (kernel_infos op_list[i].tensors)."""

    reads: tuple
    writes: tuple


@dataclasses.dataclass(frozen=True)
class SubOp:
    index: int
    kernel_name: str
    kernel_type: str
    block_dim: int
    params: tuple
    stream_id: int
    task_type: str
    send_events: tuple
    recv_events: tuple
    bin_path: str
    json_path: str
    funcs: tuple                       # ArchFunc per arch of the kernel type
    split_mode: int | None             # as in the JSON (None when absent or null)
    early_start_set: bool
    early_start_wait: bool
    dcci_before: bool
    dcci_after: bool
    dcci_disable: bool | None          # None when the JSON lacks the field
    sync_all: bool
    debug_options: str | None
    debug_buf_size: int | None
    op_type: str | None
    dynamic_keys: tuple                # DynamicKey, in dynamic_func_names order
    tensors: TensorAccess | None = None  # None when op_list[i] declares none
    _objects: object = dataclasses.field(default=None, repr=False, compare=False)

    @property
    def dynamic(self) -> bool:
        return self.task_type == "dynamic"

    @property
    def label(self) -> str:
        return f"op_list[{self.index}] ({self.kernel_name})"

    def arches(self) -> tuple:
        return tuple(f.arch for f in self.funcs)

    def func(self, arch: str) -> ArchFunc:
        for f in self.funcs:
            if f.arch == arch:
                return f
        raise KeyError(arch)

    def check_split_copies(self, split_mode: int) -> None:
        """Split copies must exist and define `<symbol>_split<i>` unless upstream would derive them."""
        if self.split_mode is None or split_mode <= 1:
            return
        for f in self.funcs:
            symbols = [f.func_name] + [s for k in self.dynamic_keys for a, s in k.funcs if a == f.arch]
            for i, name in enumerate(split_objects(f, split_mode, raw=True), start=1):
                info = self._objects.get(name, f"at {self.label}: split copy {i} of {f.key}")
                for sym in dict.fromkeys(symbols):
                    if not info.defines(f"{sym}_split{i}"):
                        raise SkError("split copy does not define the renamed entry symbol",
                                      where=f"at {self.label}: {os.path.basename(name)}",
                                      value=f"{sym}_split{i}",
                                      allowed="each <stem>_splitN.o must define <func>_splitN")


def split_objects(f: ArchFunc, split_mode: int, raw: bool = False) -> list:
    """Upstream's names of the split copies 1..split_mode-1 of f's object: `<stem>_split<i>.o`."""
    stem, ext = os.path.splitext(f._path if raw else f.object)
    ext = ext or ".o"
    return [f"{stem}_split{i}{ext}" for i in range(1, split_mode)]


@dataclasses.dataclass(frozen=True)
class KernelInfos:
    kernel_name: str
    options_text: str
    ops: tuple


# debugOptions words that make an op dump into the SuperKernel's workspace (upstream timestamp_option).
DUMP_KEYWORDS = ("timestamp", "printf", "assert")


def dumps(debug_options: str | None) -> bool:
    """Whether an op's debugOptions ask for a dump (one of DUMP_KEYWORDS in them)."""
    return any(k in (debug_options or "") for k in DUMP_KEYWORDS)


class _ObjectSource:
    """Finds objects by name: inside the op's archive, or as files beside the JSON."""

    def __init__(self, archive: dict | None, archive_name: str, search_dir: str, known: dict | None = None):
        # member name -> bytes; with `known` (facts of a packed archive), member name -> ObjectInfo
        self.archive = known if known is not None else archive
        self._parsed = known is not None
        self.archive_name = archive_name
        self.search_dir = search_dir
        self._cache: dict = {}

    def get(self, name: str, where: str) -> objfacts.ObjectInfo:
        if name in self._cache:
            return self._cache[name]
        if self.archive is not None:
            member = os.path.basename(name)
            if member not in self.archive:
                raise SkError("object is not a member of the op's archive", where=where, value=member,
                              allowed=f"members of {self.archive_name}: " + ", ".join(sorted(self.archive)))
            if self._parsed:
                return self.archive[member]
            info = objfacts.object_info(self.archive[member], member, f"{where}: {self.archive_name}({member})",
                                        sub_kernel=True)
        else:
            path = name if os.path.isabs(name) else os.path.join(self.search_dir, name)
            info = objfacts.read_object(path, where, name=os.path.basename(path), sub_kernel=True)
        self._cache[name] = info
        return info


# A file name holds 255 bytes (NAME_MAX); the longest output name adds ".compile_options.json".
MAX_KERNEL_NAME = 255 - len(".compile_options.json")

def _unknown_field(key: str, known, where: str) -> SkError:
    import difflib  # only on this error path (2 ms to import)

    near = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
    what = "unknown field" + (f", did you mean '{near[0]}'?" if near else "")
    return SkError(what, where=where, allowed="known fields: " + ", ".join(known))


def _require(doc: dict, field: str, types, where: str, allowed: str):
    if field not in doc:
        raise SkError("required field is missing", where=f"{where}: {field}", allowed=allowed)
    value = doc[field]
    if not isinstance(value, types) or (isinstance(value, bool) and bool not in _as_tuple(types)):
        raise SkError("field has the wrong type", where=f"{where}: {field}", value=value, allowed=allowed)
    return value


def _as_tuple(types):
    return types if isinstance(types, tuple) else (types,)


def _optional_bool(doc: dict, field: str, where: str, default=False):
    value = doc.get(field, default)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise SkError("field must be a boolean", where=f"{where}: {field}", value=value,
                      allowed="true or false")
    return value


def _required_bool(doc: dict, field: str, where: str) -> bool:
    # Upstream reads these two without a default (init_of_sub_operator_info) and refuses a JSON that
    # lacks them: an SK-mode sub-kernel compile always writes them.
    return _require(doc, field, bool, where, "true or false (written by the sub-kernel's SK-mode compile)")


def _shown(path: str) -> str:
    """A path fit for messages and outputs: relative as given, absolute reduced to its name."""
    return os.path.basename(path) if os.path.isabs(path) else path


def load_kernel_infos(path: str, platform: Platform | None = None) -> KernelInfos:
    """Read and validate a kernel_infos JSON file (relative paths resolve against its directory) for a
    SuperKernel on `platform` (default: sk.engine.platforms.DEFAULT_SOC's, as `sk gen` without --soc)."""
    return kernel_infos_from_dict(*read_kernel_infos(path), platform=platform)


def read_kernel_infos(path: str) -> tuple:
    """(the kernel_infos document, the directory its relative paths resolve against); nothing validated."""
    where = os.path.basename(path)
    try:
        doc = jsonload.loads(infile.read_text(path))
    except FileNotFoundError:
        raise SkError("kernel_infos file not found", where="--kernel-infos", value=where) from None
    except json.JSONDecodeError as err:
        raise SkError(f"kernel_infos is not valid JSON ({err.msg} at line {err.lineno} column {err.colno})",
                      where=where) from None
    except (OSError, UnicodeDecodeError) as err:
        raise SkError(f"kernel_infos cannot be read ({err})", where=where) from None
    return doc, os.path.dirname(os.path.abspath(path))


def kernel_infos_from_dict(doc, base_dir: str, kernel_name: str | None = None,
                           platform: Platform | None = None) -> KernelInfos:
    """Validate a kernel_infos mapping; `kernel_name` overrides doc["kernel_name"] (upstream's call shape)."""
    name, options_text, op_list = kernel_infos_header(doc, kernel_name)
    return KernelInfos(kernel_name=name, options_text=options_text,
                       ops=load_ops(op_list, base_dir, platform=platform or get_platform()))


def load_ops(entries: list, base_dir: str, start: int = 0, *, platform: Platform) -> tuple:
    """The SubOp of each op_list entry; `entries` begins at op_list[start] (a part may load elsewhere).

    The platform's chip names a MIX op's code in its JSON (dav-<chip>-cube/vec, kernel_types.arch_keys)."""
    return tuple(_load_op(start + i, entry, base_dir, platform) for i, entry in enumerate(entries))


def kernel_infos_header(doc, kernel_name: str | None = None) -> tuple:
    """(SK name, option string, op_list) of a kernel_infos mapping, validated except the ops themselves."""
    if not isinstance(doc, dict):
        raise SkError("kernel_infos must be a JSON object", where="at kernel_infos", value=type(doc).__name__,
                      allowed='{"kernel_name": ..., "super_kernel_options": ..., "op_list": [...]}')
    for key in doc:
        if key not in _TOP_KEYS:
            raise _unknown_field(key, _TOP_KEYS, f"at kernel_infos.{key}")
    name = kernel_name if kernel_name is not None else doc.get("kernel_name")
    if not isinstance(name, str) or not _IDENT.fullmatch(name):
        raise SkError("the SuperKernel name must be a C identifier", where="at kernel_infos.kernel_name",
                      value=name, allowed="letters, digits and '_', not starting with a digit")
    if len(name) > MAX_KERNEL_NAME:
        # It names the output files (<name>.compile_options.json): longer, and no file system takes them.
        raise SkError("the SuperKernel name is too long for the file names it gives the outputs",
                      where="at kernel_infos.kernel_name", value=name,
                      allowed=f"at most {MAX_KERNEL_NAME} characters ({len(name)} given)")
    options_text = doc.get("super_kernel_options", "")
    if options_text is None:
        options_text = ""
    if not isinstance(options_text, str):
        raise SkError("field must be a string", where="at kernel_infos.super_kernel_options", value=options_text,
                      allowed="an option string such as 'stream-fusion=1'")
    op_list = doc.get("op_list")
    if not isinstance(op_list, list) or not op_list:
        raise SkError("op_list must be a non-empty list", where="at kernel_infos.op_list", value=op_list,
                      allowed="one entry per sub-operator, in fusion order")
    return name, options_text, op_list


def _event_list(entry: dict, field: str, where: str) -> tuple:
    value = entry.get(field, [])
    if value is None:
        value = []
    if not isinstance(value, list) or any(isinstance(e, bool) or not isinstance(e, int) or e < 0 for e in value):
        raise SkError("event list must be a list of non-negative integers", where=f"{where}.{field}",
                      value=value, allowed="e.g. [100, 101] or []")
    for k, event in enumerate(value):
        numbers.whole(event, numbers.INT32, where=f"{where}.{field}[{k}]", what="event id")
    if len(set(value)) != len(value):
        raise SkError("event list repeats an event id", where=f"{where}.{field}", value=value)
    return tuple(value)


def _load_op(i: int, entry, base_dir: str, platform: Platform) -> SubOp:
    where = f"at op_list[{i}]"
    if not isinstance(entry, dict):
        raise SkError("op entry must be a JSON object", where=where, value=entry,
                      allowed='{"bin_path": ..., "json_path": ..., "stream_id": ...}')
    for key in entry:
        if key not in _OP_KEYS:
            raise _unknown_field(key, _OP_KEYS, f"{where}.{key}")
    for field in ("bin_path", "json_path"):
        if not isinstance(entry.get(field), str) or not entry[field] or "\0" in entry[field]:
            raise SkError("required path is missing, not a string or contains a NUL character",
                          where=f"{where}.{field}", value=entry.get(field),
                          allowed="a file path, relative to the kernel_infos file")
    stream_id = entry.get("stream_id")
    if isinstance(stream_id, bool) or not isinstance(stream_id, int) or stream_id < 0:
        raise SkError("stream_id must be a non-negative integer", where=f"{where}.stream_id", value=stream_id)
    numbers.whole(stream_id, numbers.INT32, where=f"{where}.stream_id", what="stream_id")
    task_type = entry.get("task_type", "normal")
    if task_type not in TASK_TYPES:
        raise SkError("unknown task_type", where=f"{where}.task_type", value=task_type,
                      allowed="normal or dynamic")
    send = _event_list(entry, "send_event_list", where)
    recv = _event_list(entry, "recv_event_list", where)

    json_file = os.path.join(base_dir, entry["json_path"])
    jwhere = f"{where}.json_path ({_shown(entry['json_path'])})"
    try:
        meta = jsonload.loads(infile.read_text(json_file))
    except FileNotFoundError:
        raise SkError("sub-op JSON not found", where=f"{where}.json_path", value=_shown(entry["json_path"]),
                      allowed="a path relative to the kernel_infos file") from None
    except json.JSONDecodeError as err:
        raise SkError(f"sub-op JSON is not valid JSON ({err.msg} at line {err.lineno} column {err.colno})",
                      where=jwhere) from None
    except (OSError, UnicodeDecodeError) as err:
        raise SkError(f"sub-op JSON cannot be read ({err})", where=jwhere) from None
    if not isinstance(meta, dict):
        raise SkError("sub-op JSON must be an object", where=jwhere, value=type(meta).__name__)

    kname = meta.get("kernelName")
    if not isinstance(kname, str) or not _IDENT.fullmatch(kname):
        raise SkError("kernelName is missing or not a C identifier", where=f"{jwhere}: kernelName", value=kname,
                      allowed="the sub-kernel's name, e.g. is_inf__kernel0")
    where = f"at op_list[{i}] ({kname}) {_shown(entry['json_path'])}"
    ktype = _require(meta, "sub_operator_kernel_type", str, where, "one of " + ", ".join(KERNEL_TYPES))
    if ktype not in KERNEL_TYPES:
        raise SkError("unsupported sub-operator kernel type", where=f"{where}: sub_operator_kernel_type",
                      value=ktype, allowed="one of " + ", ".join(KERNEL_TYPES))
    block_dim = _require(meta, "blockDim", int, where, "a positive integer")
    if block_dim <= 0:
        raise SkError("blockDim must be positive", where=f"{where}: blockDim", value=block_dim)
    numbers.whole(block_dim, numbers.UINT32, where=f"{where}: blockDim", what="blockDim")
    params = _require(meta, "sub_operator_params", list, where, "a list of parameter names")
    if not all(isinstance(p, str) and _IDENT.fullmatch(p) for p in params):
        raise SkError("parameter names must be C identifiers", where=f"{where}: sub_operator_params",
                      value=params, allowed='e.g. ["x_in__", "y_out_", "workspace"]')
    split_mode = meta.get("split_mode")
    if split_mode is not None and (isinstance(split_mode, bool) or not isinstance(split_mode, int)
                                   or not 0 < split_mode <= 64):
        raise SkError("split_mode must be a whole number from 1 to 64", where=f"{where}: split_mode",
                      value=split_mode)
    debug_options = meta.get("debugOptions")
    if debug_options is not None and not isinstance(debug_options, str):
        raise SkError("debugOptions must be a string", where=f"{where}: debugOptions", value=debug_options)
    debug_buf = meta.get("debugBufSize")
    if debug_buf is not None and (isinstance(debug_buf, bool) or not isinstance(debug_buf, int) or debug_buf < 0):
        raise SkError("debugBufSize must be a non-negative integer", where=f"{where}: debugBufSize",
                      value=debug_buf)
    if debug_buf is not None:
        numbers.whole(debug_buf, numbers.UINT64, where=f"{where}: debugBufSize", what="debugBufSize")
    if debug_buf is None and dumps(debug_options):
        raise SkError("debugOptions asks for a dump but debugBufSize is missing", where=f"{where}: debugBufSize",
                      value=debug_options, allowed="the dump buffer size in bytes, e.g. 1048576")
    op_type = meta.get("sub_operator_op_type")
    if op_type is not None and not isinstance(op_type, str):
        raise SkError("sub_operator_op_type must be a string", where=f"{where}: sub_operator_op_type",
                      value=op_type)
    dcci_disable = meta.get("sub_operator_call_dcci_disable_on_kernel")
    if dcci_disable is not None:
        dcci_disable = _optional_bool(meta, "sub_operator_call_dcci_disable_on_kernel", where)

    chip = platform.chip
    names = _require(meta, "sub_operator_kernel_name", dict, where,
                     "an object keyed by core type (" + ", ".join(kernel_types.allowed_keys(chip)) + ")")
    _check_chip_keys(names, f"{where}: sub_operator_kernel_name", platform)
    bin_file = os.path.join(base_dir, entry["bin_path"])
    bin_where = f"at op_list[{i}] ({kname}).bin_path"
    bin_data = objfacts.read_file(bin_file, bin_where)
    is_archive = ar.is_archive(bin_data)
    # An archive packed by `sk subkernel pack` comes with its objects' facts (objfacts.archive_facts).
    known = objfacts.objects_from_facts(meta.get(objfacts.FACTS_KEY), bin_data, where) if is_archive else None
    archive = (ar.by_name(ar.members(bin_data, os.path.basename(bin_file), bin_where))
               if is_archive and known is None else None)
    objects = _ObjectSource(archive, os.path.basename(bin_file), os.path.dirname(json_file), known)
    if not is_archive:
        # bin_path is a plain object: it must at least parse.
        objfacts.object_info(bin_data, os.path.basename(bin_file), bin_where, sub_kernel=True).defined_symbols

    funcs = []
    dynamic_keys = ()
    arch_keys = kernel_types.TABLE[ktype].arch_keys(chip)
    if task_type == "dynamic" and not any(key in names for _, key in arch_keys):
        # Upstream's dynamic form: the tiling-key table alone, every key's functions in bin_path
        # (process_of_dynamic_op links bin_path whole and reads no per-core-type entry).
        dynamic_keys, funcs = _dynamic_only(names, where, ktype, objects, entry["bin_path"], bin_file, json_file,
                                            chip)
    for arch, key in (() if funcs else arch_keys):
        kwhere = f"{where}: sub_operator_kernel_name.{key}"
        block = names.get(key)
        if not isinstance(block, dict):
            raise SkError(f"missing entry for core type {key} required by {ktype}", where=kwhere,
                          allowed="an object with func_name and obj_files")
        func_name = block.get("func_name")
        obj = block.get("obj_files")
        if not isinstance(func_name, str) or not _IDENT.fullmatch(func_name):
            raise SkError("func_name is missing or not a C identifier", where=f"{kwhere}.func_name", value=func_name)
        if not isinstance(obj, str) or not obj or "\0" in obj:
            raise SkError("obj_files is missing, not a string or contains a NUL character",
                          where=f"{kwhere}.obj_files", value=obj)
        info = objects.get(obj, f"{kwhere}.obj_files")
        if not info.defines(func_name):
            raise SkError("object does not define the sub-kernel entry symbol", where=f"{kwhere}.obj_files ("
                          f"{_shown(obj)})", value=func_name,
                          allowed="defined symbols: " + (", ".join(info.defined_symbols) or "none"))
        if func_name not in info.defined_functions:
            # A data symbol of that name would link, and the SuperKernel would jump into data.
            raise SkError("the sub-kernel entry symbol is not a function (an object or untyped symbol)",
                          where=f"{kwhere}.obj_files ({_shown(obj)})", value=func_name,
                          allowed="the entry must be a function symbol (STT_FUNC); functions defined there: "
                                  + (", ".join(info.defined_functions) or "none"))
        funcs.append(ArchFunc(arch=arch, key=key, func_name=func_name, object=_shown(obj),
                              text_size=_sized(info.text_size, f"{kwhere}.obj_files ({_shown(obj)})"), _path=obj))
    if split_mode is None and not all(kernel_types.TABLE[ktype].ration):
        # Upstream sizes the op's bin_path itself when the JSON has no split_mode (except for MIX 1:1/1:2,
        # whose two objects it always takes from the archive): the first `.text` section listed in it.
        size = _sized(_first_text_size(bin_data, objects, bin_where), bin_where)
        funcs = [dataclasses.replace(f, text_size=size) for f in funcs]

    if task_type == "dynamic" and not dynamic_keys:
        dynamic_keys = _dynamic_keys(names, where, funcs, objects, chip)

    return SubOp(
        index=i, kernel_name=kname, kernel_type=ktype, block_dim=block_dim, params=tuple(params),
        stream_id=stream_id, task_type=task_type, send_events=send, recv_events=recv,
        bin_path=_shown(entry["bin_path"]), json_path=_shown(entry["json_path"]), funcs=tuple(funcs),
        split_mode=split_mode,
        early_start_set=_required_bool(meta, "sub_operator_early_start_set_flag", where),
        early_start_wait=_required_bool(meta, "sub_operator_early_start_wait_flag", where),
        dcci_before=_optional_bool(meta, "sub_operator_call_dcci_before_kernel_start", where),
        dcci_after=_optional_bool(meta, "sub_operator_call_dcci_after_kernel_end", where),
        dcci_disable=dcci_disable, sync_all=_optional_bool(meta, "sub_op_with_sync_all", where),
        debug_options=debug_options, debug_buf_size=debug_buf, op_type=op_type,
        dynamic_keys=dynamic_keys, tensors=_tensors(entry, f"at op_list[{i}] ({kname}).tensors"),
        _objects=objects,
    )


def _sized(size, where: str) -> int:
    if size is None:
        raise SkError("object has no .text section to size its ICache preload", where=where,
                      allowed="a sub-kernel object with a section named .text (upstream sizes the first one)")
    return size


def _first_text_size(bin_data: bytes, objects: _ObjectSource, where: str):
    """Upstream's `llvm-objdump -h <bin_path>` reading: the first `.text` section listed, in an archive
    the first member's that has one."""
    if objects.archive is None:
        return objfacts.object_info(bin_data, "bin_path", where, sub_kernel=True).text_size
    for member in objects.archive:
        size = objects.get(member, where).text_size
        if size is not None:
            return size
    return None


def _tensors(entry: dict, where: str) -> TensorAccess | None:
    if "tensors" not in entry:
        return None
    doc = entry["tensors"]
    example = '{"reads": ["x", "y"], "writes": ["z"]}'
    if not isinstance(doc, dict):
        raise SkError("tensors must be an object", where=where, value=doc, allowed=example)
    for key in doc:
        if key not in _TENSOR_KEYS:
            raise _unknown_field(key, _TENSOR_KEYS, f"{where}.{key}")
    lists = []
    for key in _TENSOR_KEYS:
        names = doc.get(key, [])
        if not isinstance(names, list) or not all(isinstance(n, str) and _TENSOR_NAME.fullmatch(n) for n in names):
            raise SkError("must be a list of tensor names", where=f"{where}.{key}", value=names,
                          allowed="non-empty names of printable characters without spaces, e.g. " + example)
        if len(set(names)) != len(names):
            raise SkError("a tensor is listed twice", where=f"{where}.{key}", value=names,
                          allowed="each name once; an op that reads and writes a tensor lists it in both")
        lists.append(tuple(names))
    return TensorAccess(reads=lists[0], writes=lists[1])


def _dynamic_only(names: dict, where: str, ktype: str, objects: _ObjectSource, bin_path: str, bin_file: str,
                  json_file: str, chip: str) -> tuple:
    """(tiling keys, one ArchFunc per core side) of a dynamic op whose sub_operator_kernel_name holds only
    dynamic_func_names: every key's symbols are looked up in bin_path (an object, or any member of an
    archive); each side's ArchFunc stands for the object that defines its first key's symbol."""
    unknown = sorted(k for k in names if k != "dynamic_func_names")
    if unknown:
        raise SkError("a dynamic op without per-core-type entries has only dynamic_func_names",
                      where=f"{where}: sub_operator_kernel_name.{unknown[0]}",
                      allowed="dynamic_func_names, or an entry for every core type of sub_operator_kernel_type")
    if objects.archive is not None:
        members = sorted(objects.archive)
    else:
        members = [os.path.relpath(bin_file, os.path.dirname(json_file))]
    def lookup(symbol: str, kwhere: str):
        for m in members:
            if objects.get(m, kwhere).defines(symbol):
                return m
        raise SkError("the op's bin_path does not define the tiling-key symbol", where=kwhere, value=symbol,
                      allowed=f"a function defined in {_shown(bin_path)}")

    keys = _dynamic_keys(names, where, [], objects, chip, lookup)
    funcs = []
    # The op's core sides are its sub_operator_kernel_type's (upstream queues and guards it by that type).
    for arch, key in kernel_types.TABLE[ktype].arch_keys(chip):
        syms = [dict(k.funcs).get(arch) for k in keys]
        sym = next((x for x in syms if x), keys[0].funcs[0][1])
        member = lookup(sym, f"{where}: sub_operator_kernel_name.dynamic_func_names")
        funcs.append(ArchFunc(arch=arch, key=key, func_name=sym,
                              object=os.path.basename(member) if objects.archive is not None else _shown(bin_path),
                              text_size=objects.get(member, where).text_size, _path=member))
    return keys, funcs


def _check_chip_keys(names: dict, where: str, platform: Platform) -> None:
    """A MIX op's code keyed for another chip (dav-c220-* in a c310 SuperKernel, or the reverse) was
    compiled for that chip: refused by name, where upstream's lookup of its own chip's key fails."""
    allowed = kernel_types.allowed_keys(platform.chip)
    tables = [(where, names)]
    dynamic = names.get("dynamic_func_names")
    if isinstance(dynamic, dict):
        tables += [(f"{where}.dynamic_func_names.{k}", e) for k, e in dynamic.items() if isinstance(e, dict)]
    for twhere, table in tables:
        for key in table:
            if key.startswith(kernel_types.MIX_KEY_PREFIX) and key not in allowed:
                raise SkError(f"the sub-op's code is keyed for another chip than the SoC's ({platform.soc}, "
                              f"chip {platform.chip})", where=f"{twhere}.{key}", value=key,
                              allowed=f"the core-type keys of {platform.soc}: " + ", ".join(allowed)
                              + f"; compile the sub-kernel for {platform.soc} (its chip, {platform.chip})")


def _dynamic_keys(names: dict, where: str, funcs: list, objects: _ObjectSource, chip: str, lookup=None) -> tuple:
    table = names.get("dynamic_func_names")
    dwhere = f"{where}: sub_operator_kernel_name.dynamic_func_names"
    if not isinstance(table, dict) or not table:
        raise SkError("a dynamic op needs a non-empty dynamic_func_names table", where=dwhere,
                      allowed='{"<tiling key>": {"kernel_type": ..., "<core type>": "<symbol>"}}')
    keys = []
    for raw_key, entry in table.items():
        kwhere = f"{dwhere}.{raw_key}"
        if not re.fullmatch(r"[0-9]+", raw_key):
            raise SkError("tiling key must be a non-negative integer", where=kwhere, value=raw_key)
        # Digits first: int() refuses more than 4,300 of them with a ValueError.
        if len(raw_key.lstrip("0")) > 20 or int(raw_key) > numbers.UINT64[2]:
            raise SkError("tiling key is out of range", where=kwhere, value=raw_key,
                          allowed=f"a whole number from 0 to {numbers.UINT64[2]} (uint64_t)")
        if not isinstance(entry, dict):
            raise SkError("tiling key entry must be an object", where=kwhere, value=entry)
        ktype = entry.get("kernel_type")
        if ktype not in KERNEL_TYPES:
            raise SkError("unsupported kernel_type", where=f"{kwhere}.kernel_type", value=ktype,
                          allowed="one of " + ", ".join(KERNEL_TYPES))
        pairs = []
        for arch, key in kernel_types.TABLE[ktype].arch_keys(chip):
            symbol = entry.get(key)
            if not isinstance(symbol, str) or not _IDENT.fullmatch(symbol):
                raise SkError(f"missing symbol for core type {key} required by {ktype}",
                              where=f"{kwhere}.{key}", value=symbol)
            if lookup is not None:
                lookup(symbol, f"{kwhere}.{key}")
                pairs.append((arch, symbol))
                continue
            owner = next((f for f in funcs if f.arch == arch), funcs[0])
            info = objects.get(owner._path, f"{kwhere}.{key}")
            if not info.defines(symbol):
                raise SkError("object does not define the tiling-key symbol", where=f"{kwhere}.{key}",
                              value=symbol, allowed=f"defined in {owner.object}: " +
                              (", ".join(info.defined_symbols) or "none"))
            pairs.append((arch, symbol))
        keys.append(DynamicKey(tiling_key=int(raw_key), kernel_type=ktype, funcs=tuple(pairs)))
    if len({k.tiling_key for k in keys}) != len(keys):
        raise SkError("tiling keys repeat (e.g. '2' and '02')", where=dwhere)
    return tuple(keys)
