"""Operators as CANN's operator repositories write them: binary variants and template tiling keys.

An op of ops-math & co. (docs/cann-ops.md, facts §17) is built once per binary variant of
`op_host/config/<soc>/<op>_binary.json` and, inside a variant, once per template-argument
combination its `<op>_tiling_key.h` selects (`ASCENDC_TPL_SEL`). This module holds the facts of
both as data, no tools:

* the ADK's dtype table and the `-DDTYPE_<P>=… -DORIG_DTYPE_<P>=… -DFORMAT_<P>=…` defines of one
  variant (asc-devkit `cmake/asc/fwk_modules/util/ascendc_impl_build.py`);
* the `@@…@@` markers that `template_argument.h` leaves in a `-DASCENDC_TPL_PRE` preprocess,
  read into declarations and selections (asc-devkit `template_tiling.py`);
* the tiling key of a combination: the arguments in declaration order, each in its declared bit
  width, first argument lowest; a UINT argument contributes its index in the declared value list,
  the others their value (asc-devkit `template_argument.cpp` / `template_tiling.py`).
"""

from __future__ import annotations

import itertools
import os
import re
from collections import namedtuple

from sk.base import jsonload
from sk.base.errors import SkError
from sk.base.infile import NotReadable, read_text

# ADK DTYPE_MAP: binary-config dtype -> (ORIG_DTYPE_ value, DTYPE_ C type). Only the types a kernel
# can name are listed; the ADK's "unknown" rows (string, qint8, …) are refused with the allowed list.
DTYPES = {
    "float32": ("DT_FLOAT", "float"),
    "float16": ("DT_FLOAT16", "half"),
    "int8": ("DT_INT8", "int8_t"),
    "int16": ("DT_INT16", "int16_t"),
    "int32": ("DT_INT32", "int32_t"),
    "int64": ("DT_INT64", "int64_t"),
    "uint1": ("DT_UINT1", "uint1b_t"),
    "uint8": ("DT_UINT8", "uint8_t"),
    "uint16": ("DT_UINT16", "uint16_t"),
    "uint32": ("DT_UINT32", "uint32_t"),
    "uint64": ("DT_UINT64", "uint64_t"),
    "bool": ("DT_BOOL", "bool"),
    "double": ("DT_DOUBLE", "double"),
    "complex32": ("DT_COMPLEX32", "complex32"),
    "complex64": ("DT_COMPLEX64", "complex64"),
    "int4": ("DT_INT4", "int4b_t"),
    "bfloat16": ("DT_BF16", "bfloat16_t"),
    "float8_e5m2": ("DT_FLOAT8_E5M2", "fp8_e5m2_t"),
    "float8_e4m3fn": ("DT_FLOAT8_E4M3FN", "fp8_e4m3fn_t"),
    "hifloat8": ("DT_HIFLOAT8", "hifloat8_t"),
    "float8_e8m0": ("DT_FLOAT8_E8M0", "fp8_e8m0_t"),
    "float4_e2m1": ("DT_FLOAT4_E2M1", "fp4x2_e2m1_t"),
    "float4_e1m2": ("DT_FLOAT4_E1M2", "fp4x2_e1m2_t"),
    "int2": ("DT_INT2", "int2b_t"),
}

# The compile of every template kernel defines this (ADK compile_op: the kernel-side branch of
# template_argument.h); the `-E` pass that reads DECL/SEL defines ASCENDC_TPL_PRE instead.
TPL_KERNEL_DEFINE = "-DASCENDC_TPL_KERNEL"
# The op's generated impl passes this after the variant defines to every compile of the op, the
# -E pass included (ascendc_impl_build.py: 1 only when the build config enables deterministic
# mode, which a binary-config build does not); kernels test it in #if.
DETERMINISTIC_DEFINE = "-DDETERMINISTIC_MODE=0"
# compile_op adds these op compile options after it (_add_op_compile_options_by_customized_json: unless
# the op's compile options turn auto sync off): bisheng inserts the pipe syncs an Ascend C op leaves to
# the compiler. Bisheng's own flags, so the CANN toolchain only.
AUTO_SYNC_FLAGS = ("--cce-auto-sync", "-mllvm", "-api-deps-filter")
TPL_PRE_DEFINE = "-DASCENDC_TPL_PRE"

# One parameter of a variant: name as the op definition spells it, its dtype and format; None for
# an optional parameter the variant leaves out (the ADK skips it).
# dynamic: a list parameter (the kernel gets a ListTensorDesc, the first tensor gives the defines).
# optional: its "paramType" is "optional", so a call may leave it out (the kernel then gets a null
# GM pointer there; one binary serves both, as the ADK builds it).
Param = namedtuple("Param", "name dtype format dynamic optional", defaults=(False, False))
Variant = namedtuple("Variant", "index bin_filename inputs outputs")

CONFIG_LIMIT = 16 << 20


def _param(doc, where: str):
    # A dynamic (list) parameter is given as a list of tensors; the ADK takes the first one's
    # dtype and format, and skips an empty list.
    dynamic = isinstance(doc, list)
    if dynamic:
        if not doc:
            return None
        doc = doc[0]
    if doc is None:
        return None
    if not isinstance(doc, dict) or not isinstance(doc.get("name"), str) or not doc["name"]:
        raise SkError("a parameter of a binary variant must be an object with a non-empty \"name\"",
                      where=where, value=doc, allowed='{"name": ..., "dtype": ..., "format": ...}')
    dtype, fmt = doc.get("dtype"), doc.get("format", "ND")
    if dtype not in DTYPES:
        raise SkError(f"parameter '{doc['name']}' has a dtype the ADK cannot compile", where=where,
                      value=dtype, allowed=", ".join(sorted(DTYPES)))
    if not isinstance(fmt, str) or not re.fullmatch(r"[A-Z0-9_]+", fmt):
        raise SkError(f"parameter '{doc['name']}' has a format that is not a FORMAT_ name", where=where,
                      value=fmt, allowed="ND, NCHW, NHWC, FRACTAL_NZ, ... (upper-case)")
    return Param(doc["name"], dtype, fmt, dynamic, doc.get("paramType") == "optional")


def parse_binary_config(doc, where: str) -> list:
    """The variants (op_list) of a parsed `<op>_binary.json`."""
    if not isinstance(doc, dict) or not isinstance(doc.get("op_list"), list) or not doc["op_list"]:
        raise SkError("a binary config is an object with a non-empty \"op_list\"", where=where,
                      allowed='{"op_type": ..., "op_list": [{"bin_filename": ..., "inputs": [...], "outputs": [...]}]}')
    variants = []
    for i, v in enumerate(doc["op_list"]):
        at = f"{where}: op_list[{i}]"
        if not isinstance(v, dict):
            raise SkError("a binary variant must be an object", where=at, value=v)
        ins, outs = v.get("inputs", []), v.get("outputs", [])
        if not isinstance(ins, list) or not isinstance(outs, list):
            raise SkError("inputs and outputs of a binary variant are lists", where=at)
        variants.append(Variant(i, str(v.get("bin_filename", "")),
                                tuple(_param(p, f"{at}.inputs[{j}]") for j, p in enumerate(ins)),
                                tuple(_param(p, f"{at}.outputs[{j}]") for j, p in enumerate(outs))))
    return variants


def load_binary_config(path: str, warn=None) -> list:
    """Reads `op_host/config/<soc>/<op>_binary.json`: its variants, in op_list order.

    A binary config is the ADK's input, read by its Python json, which keeps the last of two equal keys in one
    object (ops-nn's foreach_reciprocal names `bin_filename` twice). With warn (a callable taking one line), such a
    config is read as the ADK reads it and warn is told each repeated key with its file and line; without warn a
    repeated key is refused, as in every JSON sk reads.
    """
    found = [] if warn is not None else None
    try:
        text = read_text(path, CONFIG_LIMIT)
        doc = jsonload.loads(text, duplicates=found)
    except (OSError, NotReadable) as e:
        raise SkError(f"cannot read the binary config: {e}", where=path) from None
    except ValueError as e:
        raise SkError(f"the binary config is not JSON: {e}", where=path) from None
    if found:
        for key, line in jsonload.duplicate_lines(text):
            warn(f"{path}:{line}: key '{key}' appears twice in one object; read as the ADK reads it "
                 "(Python json: the last value wins)")
    return parse_binary_config(doc, path)


def find_variant(variants, selector: str, where: str):
    """The variant `selector` names: its op_list index or its bin_filename."""
    for v in variants:
        if selector == str(v.index) or (v.bin_filename and selector == v.bin_filename):
            return v
    raise SkError("no binary variant has this index or bin_filename", where=where, value=selector,
                  allowed=", ".join(f"{v.index} ({v.bin_filename})" for v in variants))


def variant_defines(variant) -> list:
    """The ADK's defines of one variant, inputs then outputs in the config's order: for each
    parameter `-DDTYPE_<P>=<c type>`, `-DORIG_DTYPE_<P>=<DT_…>`, `-DFORMAT_<P>=FORMAT_<f>`, with
    <P> the name upper-cased and `_REF` appended to an output named like an input."""
    out, seen = [], set()
    for param, is_output in [(p, False) for p in variant.inputs] + [(p, True) for p in variant.outputs]:
        if param is None:
            continue
        name = param.name.upper()
        if is_output and name in seen:
            name += "_REF"
        elif not is_output:
            seen.add(name)
        orig, ctype = DTYPES[param.dtype]
        out += [f"-DDTYPE_{name}={ctype}", f"-DORIG_DTYPE_{name}={orig}", f"-DFORMAT_{name}=FORMAT_{param.format}"]
    return out


def binary_variant_defines(config_path: str, selector: str) -> list:
    """`variant_defines` of the variant `selector` (op_list index or bin_filename) of a binary config file."""
    return variant_defines(find_variant(load_binary_config(config_path), selector, config_path))


# --- where an op's kernel is -----------------------------------------------------------------------

# The kernel source and entry of one op for one SoC: `src` relative to op_kernel/, `entry` the __global__ function.
KernelSource = namedtuple("KernelSource", "src entry")

_ADD_KERNEL_SOURCES = re.compile(r"\badd_kernel_sources\s*\(([^)]*)\)", re.I)
_CFG_DECL = re.compile(r"\bOpAICoreConfig\s+(\w+)")
_EXTEND = re.compile(r'ExtendCfgInfo\s*\(\s*"(opFile|opInterface)\.value"\s*,\s*"([^"]*)"\s*\)')
_ADD_CONFIG = re.compile(r'AddConfig\s*\(\s*"(\w+)"\s*(?:,\s*(\w+)\s*)?\)')


def _cmake_kernel_src(op_dir: str, soc: str):
    """KERNEL_SRC of the op's add_kernel_sources(...) call that applies to soc (its COMPUTE_UNITS name soc, or it
    names none), in the op folder's or op_kernel/'s CMakeLists.txt; None without one."""
    for sub in ("", "op_kernel"):
        path = os.path.join(op_dir, sub, "CMakeLists.txt")
        if not os.path.isfile(path):
            continue
        text = re.sub(r"#[^\n]*", "", read_text(path, CONFIG_LIMIT))
        for m in _ADD_KERNEL_SOURCES.finditer(text):
            words = m.group(1).split()
            src, units, key = None, [], None
            for w in words:
                if w in ("KERNEL_SRC", "COMPUTE_UNITS", "SIMPLIFIED_KEY", "AUTO_SYNC", "IMPL_MODE", "OPTIONS"):
                    key = w
                elif key == "KERNEL_SRC":
                    src, key = w, None
                elif key == "COMPUTE_UNITS":
                    units.append(w)
            if src and (not units or soc in units):
                return src if src.endswith(".cpp") else src + ".cpp"
    return None


def _def_config_values(op_dir: str, soc: str) -> dict:
    """{"opFile": ..., "opInterface": ...} the op definition (op_host/*_def.cpp) gives the AI Core config it adds
    for soc (`cfg.ExtendCfgInfo("opFile.value", "x")` ... `AddConfig("<soc>", cfg)`); a value every config of the
    definition shares when none is added for soc by name."""
    host = os.path.join(op_dir, "op_host")
    per_cfg, added, every = {}, {}, {}
    names = sorted(os.listdir(host)) if os.path.isdir(host) else []
    for name in names:
        if not name.endswith("_def.cpp"):
            continue
        text = re.sub(r"//[^\n]*", "", read_text(os.path.join(host, name), CONFIG_LIMIT))
        cfgs = set(_CFG_DECL.findall(text))
        # A statement that begins with a config's name (or declares it) configures that config.
        for stmt in text.split(";"):
            m = re.match(r"\s*(?:OpAICoreConfig\s+)?(\w+)", stmt)
            owner = m.group(1) if m and m.group(1) in cfgs else None
            for k, v in _EXTEND.findall(stmt):
                every.setdefault(k, set()).add(v)
                if owner:
                    per_cfg.setdefault(owner, {})[k] = v
            for unit, cfg in _ADD_CONFIG.findall(stmt):
                # AddConfig copies the config as it is then (mat_mul_v3 sets opFile on it after adding it for
                # the 910B, for another SoC).
                added.setdefault(unit, dict(per_cfg.get(cfg, {})))
    if soc in added:
        # The config added for soc by name is the one: a key it leaves out takes the ADK's default.
        return added[soc]
    # No config added for soc by its name (`AddConfig(version, cfg)` in a loop): what all of them say, if one thing.
    return {k: next(iter(vs)) for k, vs in every.items() if len(vs) == 1}


def kernel_source(op_dir: str, soc: str) -> KernelSource:
    """Where the op build finds the kernel of the op in op_dir for soc, as the ADK does: the source is the
    KERNEL_SRC of the op's add_kernel_sources for soc (ops-nn cmake/func.cmake -> `kernelSrc.value`), else the op
    definition's `opFile.value` + .cpp (asc-devkit ascendc_impl_build.py: `self.op_file + ".cpp"`), else
    `<op folder>.cpp`; the entry is the definition's `opInterface.value`, else the folder's name. (Where the
    definition gives neither, the ADK's default is the op type in snake case, which is the folder's name in CANN's
    repositories.)"""
    op = os.path.basename(os.path.normpath(op_dir))
    cfg = _def_config_values(op_dir, soc)
    src = _cmake_kernel_src(op_dir, soc) or (cfg["opFile"] + ".cpp" if cfg.get("opFile") else f"{op}.cpp")
    return KernelSource(src, cfg.get("opInterface") or op)


# --- template arguments -------------------------------------------------------------------------

# Kinds of ASCENDC_TPL_*_DECL and their bit widths (template_argument.h: DTYPE/FORMAT/KERNEL_TYPE 8,
# BOOL 1, UINT as declared).
UINT, BOOL, DTYPE, FORMAT, KERNEL_TYPE = "UINT", "BOOL", "DTYPE", "FORMAT", "KERNEL_TYPE"
# ASCENDC_TPL_DATATYPE_*: values are ge::DataType numbers (C_DT_* names allowed) and the kernel's template
# parameter is the type itself, `TypeFromId<n>::type` (template_tiling.py).
DATATYPE = "DATATYPE"
# An ASCENDC_TPL_FORMAT_DECL that lists native formats (C_FORMAT_* names) or follows a parameter
# (ASCENDC_TPL_INPUT/OUTPUT) is the ADK's DATAFORMAT (template_tiling.py build_format_class): values
# are ge::Format numbers, 8 bits, encoded by value; the kernel gets the number.
DATAFORMAT = "DATAFORMAT"
INPUT_BIAS, OUTPUT_BIAS = 100000000, 900000000
# C_DT_<name> -> ge::DataType number (asc-devkit template_tiling.py ASCENDC_COMPILE_DATATYPE_MAP).
DT_NUMBERS = {
    "DT_FLOAT": 0, "DT_FLOAT16": 1, "DT_INT8": 2, "DT_INT32": 3, "DT_UINT8": 4, "DT_INT16": 6, "DT_UINT16": 7,
    "DT_UINT32": 8, "DT_INT64": 9, "DT_UINT64": 10, "DT_DOUBLE": 11, "DT_BOOL": 12, "DT_COMPLEX64": 16,
    "DT_BF16": 27, "DT_INT4": 29, "DT_UINT1": 30, "DT_INT2": 31, "DT_COMPLEX32": 33, "DT_HIFLOAT8": 34,
    "DT_FLOAT8_E5M2": 35, "DT_FLOAT8_E4M3FN": 36, "DT_FLOAT4_E2M1": 40, "DT_FLOAT4_E1M2": 41,
}
# FORMAT_<name> -> ge::Format number (asc-devkit template_tiling.py ASCENDC_COMPILE_DATAFORMAT_MAP;
# numbers from 55 on are not formats).
FORMAT_NUMBERS = {
    "NCHW": 0, "NHWC": 1, "ND": 2, "NC1HWC0": 3, "FRACTAL_Z": 4, "NC1C0HWPAD": 5, "NHWC1C0": 6, "FSR_NCHW": 7,
    "FRACTAL_DECONV": 8, "C1HWNC0": 9, "FRACTAL_DECONV_TRANSPOSE": 10, "FRACTAL_DECONV_SP_STRIDE_TRANS": 11,
    "NC1HWC0_C04": 12, "FRACTAL_Z_C04": 13, "CHWN": 14, "FRACTAL_DECONV_SP_STRIDE8_TRANS": 15, "HWCN": 16,
    "NC1KHKWHWC0": 17, "BN_WEIGHT": 18, "FILTER_HWCK": 19, "HASHTABLE_LOOKUP_LOOKUPS": 20,
    "HASHTABLE_LOOKUP_KEYS": 21, "HASHTABLE_LOOKUP_VALUE": 22, "HASHTABLE_LOOKUP_OUTPUT": 23,
    "HASHTABLE_LOOKUP_HITS": 24, "C1HWNCoC0": 25, "MD": 26, "NDHWC": 27, "FRACTAL_ZZ": 28, "FRACTAL_NZ": 29,
    "NCDHW": 30, "DHWCN": 31, "NDC1HWC0": 32, "FRACTAL_Z_3D": 33, "CN": 34, "NC": 35, "DHWNC": 36,
    "FRACTAL_Z_3D_TRANSPOSE": 37, "FRACTAL_ZN_LSTM": 38, "FRACTAL_Z_G": 39, "RESERVED": 40, "ALL": 41, "NULL": 42,
    "ND_RNN_BIAS": 43, "FRACTAL_ZN_RNN": 44, "NYUV": 45, "NYUV_A": 46, "NCL": 47, "FRACTAL_Z_WINO": 48,
    "C1HWC0": 49, "FRACTAL_NZ_C0_16": 50, "FRACTAL_NZ_C0_32": 51, "FRACTAL_NZ_C0_2": 52, "FRACTAL_NZ_C0_4": 53,
    "FRACTAL_NZ_C0_8": 54,
}
UI_RANGE, UI_LIST, UI_MIX = 0, 1, 2
MAX_KEY_BITS = 64

# bound: ("input"|"output", index) for a DATATYPE or DATAFORMAT argument declared with ASCENDC_TPL_INPUT(i) /
# ASCENDC_TPL_OUTPUT(i): its value follows that parameter's dtype (format) in the variant.
TplArg = namedtuple("TplArg", "name kind bits values bound", defaults=(None,))
# dropped: the DECL/SEL values that were no integer after preprocessing (a macro the source never defines, say);
# the ADK's template_tiling.py logs each as an invalid value and leaves it out of the list, and so does this reader.
TemplateArgs = namedtuple("TemplateArgs", "op decls selections dropped", defaults=((),))
Instance = namedtuple("Instance", "key args")  # args: ((name, value), …) in declaration order

_MARK = re.compile(r"@@([A-Za-z0-9_]*)@@\s*=\s*\{")


def _int_expr(text: str) -> int:
    """An integer literal or +, -, *, |, << of them with parentheses (what the macros expand to)."""
    import ast
    import operator

    ops = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.BitOr: operator.or_,
           ast.LShift: operator.lshift}

    def ev(node):
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
            return node.value
        if isinstance(node, ast.BinOp) and type(node.op) in ops:
            return ops[type(node.op)](ev(node.left), ev(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -ev(node.operand)
        raise ValueError(text)

    return ev(ast.parse(re.sub(r"(?<=\d)[uUlL]+\b", "", text), mode="eval"))


def _numbers(body: str, where: str, dropped: list) -> list:
    """The values of one DECL/SEL list; an item that is no integer expression, C_DT_* or C_FORMAT_* is left out and
    appended to `dropped`, as the ADK leaves it out (with an error in its log)."""
    out = []
    for item in [x.strip() for x in body.split(",") if x.strip()]:
        name = item.split("::")[-1]
        if name.startswith("C_DT_") and name[2:] in DT_NUMBERS:
            out.append(DT_NUMBERS[name[2:]])
            continue
        if name.startswith("C_FORMAT_") and name[9:] in FORMAT_NUMBERS:
            out.append(FORMAT_NUMBERS[name[9:]])
            continue
        try:
            out.append(_int_expr(item))
        except (ValueError, SyntaxError, RecursionError):
            dropped.append(item)
    return out


def _expand_uint(name: str, flag_and_values: list, where: str) -> list:
    if len(flag_and_values) < 2:
        raise SkError(f"ASCENDC_TPL_UINT {name} has too few values", where=where, value=flag_and_values)
    flag, vals = flag_and_values[0], flag_and_values[1:]
    if flag == UI_LIST:
        return vals
    if flag not in (UI_RANGE, UI_MIX):
        raise SkError(f"ASCENDC_TPL_UINT {name} has no UI_RANGE/UI_LIST/UI_MIX flag", where=where, value=flag,
                      allowed="ASCENDC_TPL_UI_RANGE (0), ASCENDC_TPL_UI_LIST (1), ASCENDC_TPL_UI_MIX (2)")
    count = vals[0]
    if 1 + 2 * count > len(vals):
        raise SkError(f"ASCENDC_TPL_UINT {name} announces {count} ranges but gives fewer", where=where, value=vals)
    out = []
    for i in range(count):
        out.extend(range(vals[1 + 2 * i], vals[2 + 2 * i] + 1))
    if flag == UI_MIX:
        out.extend(vals[1 + 2 * count:])
    return out


def _block(text: str, start: int) -> tuple:
    """The text inside the braces opening at text[start] ('{'), and the index after the closing one."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return text[start + 1:i], i + 1
    raise SkError("an ASCENDC_TPL_ marker's braces are not closed in the preprocessed source")


_KINDS = (("DTYPE_", DTYPE), ("DATATYPE_", DATATYPE), ("FORMAT_", FORMAT), ("UINT_", UINT), ("BOOL_", BOOL),
          ("SHARED_KERNEL_TYPE_", KERNEL_TYPE))


def _items(body: str, where: str, role: str, dropped: list) -> list:
    """(kind, name, values) of each `@@ASCENDC_TPL_<KIND>_<role>_<name>@@ = {…}` in body."""
    out, pos = [], 0
    while True:
        m = _MARK.search(body, pos)
        if not m:
            return out
        inner, pos = _block(body, m.end() - 1)
        mark = m.group(1)
        if not mark.startswith("ASCENDC_TPL_"):
            continue
        rest = mark[len("ASCENDC_TPL_"):]
        for prefix, kind in _KINDS:
            if rest.startswith(prefix):
                tail = rest[len(prefix):]
                if tail.startswith(role + "_") or tail == role:
                    nums = _numbers(inner, where, dropped)
                    if kind == FORMAT and ("C_FORMAT_" in inner or any(v >= INPUT_BIAS for v in nums)):
                        kind = DATAFORMAT
                    out.append((kind, tail[len(role) + 1:], nums))
                break
        # KERNEL_TYPE_SEL (the selection's kernel type: BUILD's kernel_type here), DETERMINISTIC_SEL and
        # TILING_STRUCT_SEL do not enter the key: skipped. ASCENDC_TPL_KERNEL_TYPE_DECL arrives as
        # SHARED_KERNEL_TYPE (template_argument.h), an 8-bit argument like a DTYPE.


def parse_template_args(text: str, where: str):
    """Reads the DECL and SEL markers of a `-DASCENDC_TPL_PRE` preprocess of the kernel source.

    Returns TemplateArgs, or None when the source declares no template arguments."""
    m = re.search(r"@@ASCENDC_TPL_ARGS_DECL_([A-Za-z0-9_]*)@@\s*=\s*\{", text)
    if not m:
        return None
    decl_body, _ = _block(text, m.end() - 1)
    decls = []
    dropped = []
    for kind, name, vals in _items(decl_body, where, "DECL", dropped):
        bound = None
        if kind == UINT:
            if not vals:
                raise SkError(f"ASCENDC_TPL_UINT_DECL {name} has no bit width", where=where)
            bits, values = vals[0], _expand_uint(name, vals[1:], where)
        else:
            bits, values = (1 if kind == BOOL else 8), [v for v in vals if v < INPUT_BIAS]
            links = [v for v in vals if v >= INPUT_BIAS]
            if links and kind in (DATATYPE, DATAFORMAT):
                v = links[0]
                bound = ("output", v - OUTPUT_BIAS) if v >= OUTPUT_BIAS else ("input", v - INPUT_BIAS)
            elif links:
                raise SkError(f"ASCENDC_TPL_{kind}_DECL {name} names a parameter (ASCENDC_TPL_INPUT/OUTPUT); "
                              "the ADK allows that for DATATYPE and native-format FORMAT declarations only",
                              where=where, value=links[0])
        if not values or len(set(values)) != len(values):
            raise SkError(f"ASCENDC_TPL_{kind}_DECL {name} has no values or a value twice", where=where, value=values)
        limit = len(values) if kind == UINT else max(values) + 1
        if bits < 1 or limit > (1 << bits):
            raise SkError(f"the bit width of ASCENDC_TPL_{kind}_DECL {name} cannot hold its values",
                          where=where, value=bits, allowed=f"at least {max(limit - 1, 1).bit_length()} bits")
        decls.append(TplArg(name, kind, bits, tuple(values), bound))
    if sum(d.bits for d in decls) > MAX_KEY_BITS:
        raise SkError("the template arguments need more than 64 key bits", where=where,
                      value=sum(d.bits for d in decls))
    selections = []
    s = re.search(r"@@ASCENDC_TPL_LISTS@@\s*=\s*\{", text)
    if s:
        lists_body, _ = _block(text, s.end() - 1)
        # Each ASCENDC_TPL_ARGS_SEL is `@@{ … }`.
        pos = 0
        while True:
            a = lists_body.find("@@{", pos)
            if a < 0:
                break
            inner, pos = _block(lists_body, a + 2)
            sel = {}
            for kind, name, vals in _items(inner, where, "SEL", dropped):
                decl = next((d for d in decls if d.name == name), None)
                if decl is None:
                    raise SkError(f"ASCENDC_TPL_{kind}_SEL names an argument the DECL does not declare",
                                  where=where, value=name, allowed=", ".join(d.name for d in decls))
                vals = _expand_uint(name, vals, where) if kind == UINT else vals
                bad = [v for v in vals if v not in decl.values]
                if bad:
                    raise SkError(f"ASCENDC_TPL_{kind}_SEL {name} selects a value its DECL does not declare",
                                  where=where, value=bad[0], allowed=", ".join(map(str, decl.values)))
                sel[name] = tuple(vals)
            selections.append(sel)
    return TemplateArgs(m.group(1), tuple(decls), tuple(selections), tuple(dropped))


def encode_key(decls, args: dict, where: str = "template arguments") -> int:
    """The tiling key of one combination (GET_TPL_TILING_KEY): declaration order, first lowest."""
    key, shift = 0, 0
    for d in decls:
        if d.name not in args:
            raise SkError(f"the combination gives no value for template argument '{d.name}'", where=where,
                          allowed="a value for each of " + ", ".join(x.name for x in decls))
        value = args[d.name]
        if value not in d.values:
            raise SkError(f"template argument '{d.name}' has a value its DECL does not declare", where=where,
                          value=value, allowed=", ".join(map(str, d.values)))
        key |= (d.values.index(value) if d.kind == UINT else value) << shift
        shift += d.bits
    extra = sorted(set(args) - {d.name for d in decls})
    if extra:
        raise SkError("the combination names an argument the DECL does not declare", where=where,
                      value=extra[0], allowed=", ".join(d.name for d in decls))
    return key


def selected_instances(tpl) -> list:
    """Every combination ASCENDC_TPL_SEL selects, once, ordered by key: Instance(key, args)."""
    found = {}
    for n, sel in enumerate(tpl.selections):
        missing = [d.name for d in tpl.decls if d.name not in sel]
        if missing:
            raise SkError("an ASCENDC_TPL_ARGS_SEL leaves a declared argument out", value=missing[0],
                          allowed="a *_SEL for each of " + ", ".join(d.name for d in tpl.decls))
        mine = {}
        for values in itertools.product(*(sel[d.name] for d in tpl.decls)):
            args = dict(zip((d.name for d in tpl.decls), values))
            mine.setdefault(encode_key(tpl.decls, args), tuple(args.items()))
        # The ADK's decode_tiling refuses a key two ASCENDC_TPL_ARGS_SEL both select.
        twice = sorted(set(mine) & set(found))
        if twice:
            raise SkError(f"ASCENDC_TPL_ARGS_SEL {n + 1} of {tpl.op} selects a combination an earlier one "
                          "selects too; the ADK refuses duplicated selections", value=format_args(mine[twice[0]]),
                          allowed="each combination in one ASCENDC_TPL_ARGS_SEL only")
        found.update(mine)
    return [Instance(k, found[k]) for k in sorted(found)]


def format_args(args) -> str:
    return ",".join(f"{n}={v}" for n, v in args)


def template_param_text(decls, args: dict) -> str:
    """TEMPLATE_PARAMS of an instance (the ADK's paramArgs): the values in declaration order."""
    return ", ".join(f"TypeFromId<{args[d.name]}>::type" if d.kind == DATATYPE else str(args[d.name]) for d in decls)


def bound_args(decls, variant) -> dict:
    """The values of DATATYPE arguments declared with ASCENDC_TPL_INPUT(i)/OUTPUT(i): the dtype (as a
    ge::DataType number) of that parameter in the variant (None: no variant, nothing bound)."""
    out = {}
    for d in decls:
        if d.bound is None or variant is None:
            continue
        params = variant.inputs if d.bound[0] == "input" else variant.outputs
        param = params[d.bound[1]] if 0 <= d.bound[1] < len(params) else None
        if param is None:
            raise SkError(f"ASCENDC_TPL_{d.kind}_DECL {d.name} follows {d.bound[0]} {d.bound[1]}, which the "
                          "binary variant does not have", value=variant.bin_filename or variant.index)
        if d.kind == DATAFORMAT:
            number = FORMAT_NUMBERS.get(param.format)
            if number is None:
                raise SkError(f"ASCENDC_TPL_FORMAT_DECL {d.name} follows a parameter of a format without a "
                              "ge::Format number", value=param.format, allowed=", ".join(FORMAT_NUMBERS))
        else:
            number = DT_NUMBERS.get(DTYPES[param.dtype][0])
        if number is None:
            raise SkError(f"ASCENDC_TPL_DATATYPE_DECL {d.name} follows a parameter of a dtype without a "
                          "ge::DataType number here", value=param.dtype, allowed=", ".join(sorted(DT_NUMBERS)))
        out[d.name] = number
    return out


def parse_combination(text: str, where: str) -> dict:
    """`name=value,name=value` (a combination named in BUILD) as a dict of ints."""
    out = {}
    for item in [x for x in text.split(",") if x.strip()]:
        name, eq, value = item.partition("=")
        try:
            if not eq:
                raise ValueError(item)
            out[name.strip()] = int(value.strip(), 0)
        except ValueError:
            raise SkError("a template-argument combination is name=value pairs", where=where, value=text,
                          allowed="e.g. schMode=1,useBias=0") from None
    return out


# A kernel without ASCENDC_TPL_ARGS_DECL that branches on TILING_KEY_IS(k) / TILING_KEY_LIST(k, ...) is
# compiled by the ADK once per key (TILING_KEY_VAR=<k>), the host tiling picking the binary; BUILD names
# the key as the combination `tiling_key=<k>`. The twin's sk_twin_tiling.h turns the two macros into
# these markers in the -E pass (ASCENDC_TPL_PRE).
TILING_KEY_ARG = "tiling_key"
_KEY_MARK = re.compile(r"@@SK_TILING_KEY_(?:IS|LIST)@@\s*\(")


def tiling_key_branches(text: str):
    """The keys a kernel's TILING_KEY_IS/TILING_KEY_LIST branches name in its preprocessed text, sorted:
    () if it names none, None if one of them is not an integer literal (then any key may be meant)."""
    keys = set()
    for m in _KEY_MARK.finditer(text):
        depth, i = 1, m.end()
        while i < len(text) and depth:
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
        for item in text[m.end():i - 1].split(","):
            try:
                keys.add(_int_expr(item.strip()))
            except (ValueError, SyntaxError):
                return None
    return tuple(sorted(keys))
