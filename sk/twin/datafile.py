"""The sk_model data file's fields: one table that the reader (sk.twin.model) takes its known and
required fields from, and docs/formats.md is rendered from (tools/docgen/formats.py).

A field's `path` is its place in the file: "tensors" at the top, "tensors.<name>.dtype" in each
tensor, "ops[].tiling.values" in an op's tiling. A new field is one row here; the reader refuses
fields that have none ("unknown field ..., known fields: ..."), so a field cannot be read without
being documented. `{dtypes}` and `{inits}` in `allowed` stand for sk.twin.model's DTYPES and INITS.
"""

from __future__ import annotations

from collections import namedtuple

# type: JSON type; required: whether the reader refuses a section without it; default: what an
# absent optional field means; allowed: its values; doc: what it says.
Field = namedtuple("Field", "path type required default allowed doc")

DATA_FILE = (
    Field("tensors", "object: name -> tensor", True, "", "every tensor BUILD binds, by the name it binds",
          "the model's tensors: each one's dtype, shape and initial values"),
    Field("ops", "list of objects", False, "[]", "ops BUILD runs, each at most once",
          "per-op run-time data BUILD cannot say: tiling values, workspace bytes"),
    Field("name", "string", False, "the sk_model's name", "a C identifier", "the model's name in reports"),
    Field("kernels", "object", False, "BUILD's", "exactly BUILD's kernels and fields",
          "a self-contained model file's kernels, given as data: every field must equal BUILD's"),
    Field("super_kernels", "list of objects", False, "BUILD's", "BUILD's scopes, in run order",
          "a self-contained model file's scopes: name, ops and options must equal BUILD's"),
    Field("tasks", "list of objects", False, "BUILD's", "exactly BUILD's sk_model tasks",
          "a self-contained model file's tasks: must equal BUILD's"),
    Field("tensors.<name>.dtype", "string", True, "", "{dtypes}", "element type"),
    Field("tensors.<name>.shape", "list of integers", True, "", "a non-empty list of sizes >= 1; at most 1 GiB "
          "per tensor", "dimensions, outermost first"),
    Field("tensors.<name>.init", "string", False, "`random` for a tensor no op writes, `zeros` for one an op writes",
          "{inits}", "initial values, the same in both runs (the separate and the fused), when no `file` "
          "is given"),
    Field("tensors.<name>.file", "string: a path relative to the data file", False, "none (`init`)",
          "`*.npy` whose dtype and shape equal the tensor's (`bfloat16`: an `.npy` of `uint16` holding the bit "
          "patterns, numpy having no bfloat16), or any other name: raw little-endian bytes of the "
          "tensor's dtype, exactly its element count (the `.bin` Ascend C samples' data scripts write); not "
          "with `init`", "the tensor's initial contents, read from the file (BUILD lists it in `data_files`)"),
    Field("tensors.<name>.expected", "string: a path relative to the data file", False, "none",
          "`*.npy` or raw, as `file`; for a `bfloat16` tensor also an `.npy` of `float32` values (a reference "
          "computed in float32, compared unrounded)", "reference contents the tensor must hold after the separate run and "
          "after the fused run; a miss names the run, the tensor, the first index and both values"),
    Field("tensors.<name>.rtol", "number", False, "float32: 1e-4, float16: 1e-3, bfloat16: 1e-2, integers: 0 "
          "(sk.twin.model.DEFAULT_TOLERANCES)", ">= 0, only with `expected`",
          "relative tolerance: an element passes when |got - want| <= atol + rtol * |want| (a `bfloat16` "
          "element is its exact value: its 16 bits as the upper half of a float32)"),
    Field("tensors.<name>.atol", "number", False, "float32: 1e-5, float16: 1e-3, bfloat16: 1e-3, integers: 0",
          ">= 0, only with `expected`", "absolute tolerance"),
    Field("ops[].name", "string", False, "`kernel`'s value", "the name of an op BUILD runs (an sk_op's target "
          "name; an sk_sub_kernel run on its own: its name)", "which op the entry is for"),
    Field("ops[].tiling", "object", False, "none", "required when the op's kernel has `tiling = True`, unless it "
          "is a tiling-sink kernel (`tiling_keys`): then it must be absent (its tiling function writes it)",
          "the op's tiling buffer, given as typed values"),
    Field("ops[].workspace_bytes", "integer", False, "the kernel's `workspace` in BUILD (0: none)",
          "0 .. 1073741824", "bytes of the op's workspace buffer (zeroed before each run)"),
    Field("ops[].kernel", "string", False, "BUILD's", "BUILD's", "must equal BUILD's (a self-contained model file)"),
    Field("ops[].bind", "object", False, "BUILD's", "BUILD's", "must equal BUILD's (a self-contained model file); "
          "`null` for a parameter BUILD leaves out (sk_op `bind = {\"bias\": \"\"}`: an absent optional "
          "parameter of a CANN operator, docs/cann-ops.md)"),
    Field("ops[].stream", "integer", False, "BUILD's", "BUILD's", "must equal BUILD's (a self-contained model file)"),
    Field("ops[].send_events", "list of integers", False, "BUILD's", "BUILD's",
          "must equal BUILD's (a self-contained model file)"),
    Field("ops[].recv_events", "list of integers", False, "BUILD's", "BUILD's",
          "must equal BUILD's (a self-contained model file)"),
    Field("ops[].tiling.dtype", "string", True, "", "{dtypes}", "the type of each value (not in the `file` form)"),
    Field("ops[].tiling.values", "list of numbers", True, "", "a non-empty list of values that fit `dtype`",
          "packed little-endian one after another: the bytes of the op's tiling buffer (a struct of "
          "mixed types is written as one dtype's values, e.g. int32 bit patterns)"),
    Field("ops[].tiling.file", "string: a path relative to the data file", False, "none",
          "a non-empty file (at most 1 MiB); then the tiling has no other field",
          "the other form of a tiling: the bytes of the op's tiling buffer, read from the file"),
    Field("ops[].tiling.file", "string: a path relative to the data file", False, "none",
          "a non-empty file (at most 1 MiB); then the tiling has no other field",
          "the other form of a tiling: the bytes of the op's tiling buffer, read from the file"),
)

# What each `init` value fills a tensor with (sk.twin.model.Tensor.initial_bytes).
INIT_VALUES = {
    "random": "seeded per tensor name (adding a tensor changes no other): float32, float16, bfloat16 and "
              "float64 uniform in [-4, 4] (float16 and bfloat16 rounded to nearest even); signed integers "
              "uniform in [-100, 100]; unsigned integers uniform in [0, 100]; bool 0 or 1",
    "zeros": "every element 0 (bool: false)",
    "ones": "every element 1 (bool: true)",
}


def keys(section: str) -> tuple:
    """(required, optional) field names directly below `section` ("" for the top level)."""
    prefix = section + "." if section else ""
    direct = [f for f in DATA_FILE if f.path.startswith(prefix) and "." not in f.path[len(prefix):]]
    return (tuple(f.path[len(prefix):] for f in direct if f.required),
            tuple(f.path[len(prefix):] for f in direct if not f.required))
