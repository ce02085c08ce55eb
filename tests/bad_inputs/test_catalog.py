"""The bad-input catalog: each entry is one bad input fed to `python -m sk`.

Every case must end with exit status 2 (sk's user-error status), one error
paragraph on stderr that contains the case's key words (the culprit: option,
JSON path, op, file, symbol; the bad value; what is allowed), no traceback,
and no output file. BUILD-attribute failures are analysis tests in
tests/analysis (see README.md here for the combined count).
"""

from __future__ import annotations

import json
import os
import shutil

import pytest

from sk.binfmt import ar

from badinputs import (ROOT, edit_json, fusion, make_data_object, make_elf32, make_object, no_calls_scan,
                       sk)

CASES = []
AIV = "KERNEL_TYPE_AIV_ONLY"


def case(category, name, *keywords, env=None):
    """Registers fn(tmp) -> argv as a catalog entry whose stderr must contain `keywords`."""
    def register(fn):
        CASES.append(pytest.param(fn, keywords, env, id=f"{category}/{name}"))
        return fn
    return register


# ---------------------------------------------------------------- option strings (sk options)

def option(name, text, *keywords):
    case("options", name, *keywords)(lambda tmp: ["options", text])


option("unknown_key_suggests", "stream-funsion=1", "option 'stream-funsion'", "not supported", "stream-fusion")
option("unknown_key_lists_known", "fast=1", "option 'fast'", "known options", "split-mode")
option("missing_value", "split-mode=", "split-mode=", "missing a key or a value", "key=value")
option("missing_key", "=4", "'=4'", "missing a key or a value")
option("duplicate_key", "split-mode=2:split-mode=4", "option 'split-mode'", "more than once")
option("split_mode_zero", "split-mode=0", "option 'split-mode'", "'0'", "1 to 64")
option("split_mode_65", "split-mode=65", "option 'split-mode'", "'65'", "1 to 64")
option("split_mode_word", "split-mode=four", "option 'split-mode'", "'four'", "1 to 64")
option("split_mode_negative", "split-mode=-4", "option 'split-mode'", "'-4'", "1 to 64")
option("func_align_not_power_of_two", "func-align=3", "option 'func-align'", "'3'", "power of two")
option("func_align_hex", "func-align=0x200", "option 'func-align'", "'0x200'", "decimal digits")
option("func_align_5000_digits", "func-align=" + "2" * 5000, "option 'func-align'", "characters in all",
       "power of two")
option("early_start_3", "early-start=3", "option 'early-start'", "'3'", "0, 1, 2")
option("preload_code_unknown", "preload-code=all", "option 'preload-code'", "'all'", "max, none, per-func")
option("stream_fusion_yes", "stream-fusion=yes", "option 'stream-fusion'", "'yes'", "0, 1")
option("profiling_2", "profiling=2", "option 'profiling'", "'2'", "0, 1")
option("scope_check_warn", "strict-scope-check=warn", "option 'strict-scope-check'", "'warn'", "bypass, abort")
option("sync_elision_on", "sync-elision=on", "option 'sync-elision'", "'on'", "0, 1")
option("allow_mix_1_2_in_1_1_yes", "allow-mix-1-2-in-1-1=yes", "option 'allow-mix-1-2-in-1-1'", "'yes'", "0, 1")
option("aic_aiv_ratio_1_3", "debug-aic-num=12:debug-aiv-num=36", "debug-aic-num", "debug-aiv-num", "ratio",
       "'12:36'", "1:2")
option("aic_num_negative", "debug-aic-num=-1", "option 'debug-aic-num'", "'-1'", "whole number")
option("aiv_num_huge", "debug-aiv-num=" + "9" * 30, "option 'debug-aiv-num'", "at most 18 digits")


# ---------------------------------------------------------------- cross-option rules needing the SoC (sk gen)

def gen_argv(tmp, ki, *extra):
    return ["gen", "--kernel-infos", ki, "--out-dir", os.path.join(tmp, "out"), *extra]


def gen_case(category, name, *keywords, ops=None, options="", extra=(), edit=None, **kw):
    """sk gen on the default fusion input with `options`, after edit(tmp, kernel_infos_path)."""
    def build(tmp):
        ki = fusion(os.path.join(tmp, "in"), ops=ops, options=options, **kw)
        if edit:
            edit(os.path.join(tmp, "in"), ki)
        return gen_argv(tmp, ki, *extra)
    case(category, name, *keywords)(build)


MIX12 = [("m", {"kernel_type": "KERNEL_TYPE_MIX_AIC_1_2", "block_dim": 8}, {})]
gen_case("options", "aic_num_over_soc_limit", "debug-aic-num", "exceeds", "got 25", "at most 24",
         options="debug-aic-num=25:debug-aiv-num=50", ops=MIX12)
gen_case("options", "aiv_num_over_soc_limit", "debug-aiv-num", "exceeds", "got 49", "at most 48",
         options="debug-aiv-num=49", ops=[("v", {"kernel_type": AIV}, {})])
gen_case("options", "aic_num_over_smaller_soc", "debug-aic-num", "got 24", "at most 20", "ascend910b3",
         options="debug-aic-num=24:debug-aiv-num=48", ops=MIX12, extra=("--soc", "Ascend910B3"))
gen_case("options", "aiv_alone_with_cube_ops", "debug-aiv-num alone", "no cube cores", "debug-aic-num >= 8",
         options="debug-aiv-num=16")
gen_case("options", "aic_num_below_need", "debug-aic-num is below", "got 4", "at least 8 (without the options the superkernel is mix_aic_1_2 on 8 blocks)",
         options="debug-aic-num=4:debug-aiv-num=8", ops=MIX12)
gen_case("options", "unknown_soc", "--soc", "unknown soc", "'Ascend310P'", "Ascend910B1",
         extra=("--soc", "Ascend310P"))
gen_case("options", "option_error_inside_kernel_infos", "option 'split-mode'", "'99'", "1 to 64",
         options="split-mode=99")


# ---------------------------------------------------------------- kernel_infos (sk gen)

def ki_case(name, mutate, *keywords, ops=None, options=""):
    """kernel_infos with mutate(doc) applied."""
    gen_case("kernel_infos", name, *keywords, ops=ops, options=options,
             edit=lambda d, ki: edit_json(ki, mutate))


def _set(path, value):
    """mutate that sets doc[path...] = value (path: keys/indices)."""
    def mutate(doc):
        node = doc
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
    return mutate


def _drop(path):
    def mutate(doc):
        node = doc
        for key in path[:-1]:
            node = node[key]
        del node[path[-1]]
    return mutate


@case("kernel_infos", "file_not_found", "--kernel-infos", "not found", "nope.json'")
def _(tmp):
    return gen_argv(tmp, os.path.join(tmp, "nope.json"))


@case("kernel_infos", "not_json", "kernel_infos.json", "not valid json", "line 1")
def _(tmp):
    path = os.path.join(tmp, "kernel_infos.json")
    with open(path, "w") as f:
        f.write("{'op_list': []}")
    return gen_argv(tmp, path)


@case("kernel_infos", "top_level_list", "kernel_infos", "must be a json object", "'list'")
def _(tmp):
    path = os.path.join(tmp, "kernel_infos.json")
    with open(path, "w") as f:
        f.write("[]")
    return gen_argv(tmp, path)


@case("kernel_infos", "nested_100000_deep", "kernel_infos.json", "nested", "depth")
def _(tmp):
    path = os.path.join(tmp, "kernel_infos.json")
    with open(path, "w") as f:
        f.write('{"op_list": ' + "[" * 100000 + "]" * 100000 + "}")
    return gen_argv(tmp, path)


@case("kernel_infos", "duplicate_key", "kernel_infos.json", "'stream_id'", "twice", "line 1 column")
def _(tmp):
    ki = fusion(os.path.join(tmp, "in"))
    with open(ki) as f:
        text = f.read()
    with open(ki, "w") as f:
        f.write(text.replace('"stream_id": 0,', '"stream_id": 0, "stream_id": 1,', 1))
    return gen_argv(tmp, ki)


ki_case("unknown_top_field", lambda d: d.update(op_lst=d.pop("op_list")), "kernel_infos.op_lst",
        "unknown field", "did you mean 'op_list'")
ki_case("kernel_name_not_identifier", _set(["kernel_name"], "my-kernel"), "kernel_infos.kernel_name",
        "c identifier", "'my-kernel'")
ki_case("options_not_string", _set(["super_kernel_options"], 42), "super_kernel_options", "must be a string",
        "42")
ki_case("op_list_empty", _set(["op_list"], []), "op_list", "non-empty list")
ki_case("op_entry_not_object", _set(["op_list", 1], "b.json"), "op_list[1]", "json object", "'b.json'")
ki_case("op_missing_json_path", _drop(["op_list", 1, "json_path"]), "op_list[1].json_path",
        "required path is missing")
ki_case("op_unknown_field", _set(["op_list", 0, "streamid"], 0), "op_list[0].streamid", "unknown field",
        "did you mean 'stream_id'")
ki_case("stream_id_negative", _set(["op_list", 1, "stream_id"], -1), "op_list[1].stream_id", "non-negative",
        "-1")
ki_case("stream_id_string", _set(["op_list", 0, "stream_id"], "0"), "op_list[0].stream_id", "non-negative",
        "'0'")
ki_case("task_type_unknown", _set(["op_list", 0, "task_type"], "static"), "op_list[0].task_type",
        "'static'", "normal or dynamic")
ki_case("event_list_not_list", _set(["op_list", 0, "send_event_list"], "100"), "op_list[0].send_event_list",
        "'100'", "non-negative integers")
ki_case("event_list_repeats", _set(["op_list", 1, "recv_event_list"], [7, 7]), "op_list[1].recv_event_list",
        "repeats", "[7, 7]")
ki_case("path_with_nul", _set(["op_list", 1, "bin_path"], "b\u0000.o"), "op_list[1]", "bin_path",
        "nul")
ki_case("tensors_unknown_key", _set(["op_list", 0, "tensors"], {"read": ["x"]}), "op_list[0]", "tensors.read",
        "did you mean 'reads'")
ki_case("sync_elision_without_tensors", lambda d: None, "sync-elision=1", "op_list[0]", "tensors",
        options="sync-elision=1")

# Topology rules (facts §1.4)
EV = {"send_event_list": [100]}
ki_case("first_op_waits", _set(["op_list", 0, "recv_event_list"], [5]), "op_list[0]", "recv_event_list",
        "first op must not wait", "[5]")
ki_case("last_op_sends", _set(["op_list", 1, "send_event_list"], [5]), "op_list[1]", "send_event_list",
        "last op must not send", "[5]")
gen_case("kernel_infos", "two_real_streams_without_stream_fusion", "op_list[1]", "stream-fusion=1",
         "'stream 0 -> stream 1'",
         ops=[("a", {}, {}), ("b", {"kernel_type": AIV}, {"stream_id": 1})])
gen_case("kernel_infos", "three_streams_without_stream_fusion", "op_list[2]", "stream-fusion=1",
         "'stream 1 -> stream 2'",
         ops=[("a", {}, {"send_event_list": [1]}), ("b", {}, {"stream_id": 1, "recv_event_list": [1]}),
              ("c", {}, {"stream_id": 2})])
gen_case("kernel_infos", "event_received_before_sent", "op_list[1]", "recv_event_list", "got 100",
         "can never arrive", "op_list[2]",
         ops=[("a", {}, {"send_event_list": [1]}), ("b", {}, {"stream_id": 1, "recv_event_list": [1, 100],
                                                             "send_event_list": [2]}),
              ("c", {}, {"recv_event_list": [2], "send_event_list": [100]}), ("d", {}, {})])
gen_case("kernel_infos", "events_deadlock_across_two_streams", "recv_event_list", "can never arrive",
         "on its stream",
         ops=[("a", {}, {}), ("b", {}, {"recv_event_list": [7]}), ("c", {}, {"stream_id": 1, "recv_event_list": [8]}),
              ("d", {}, {"stream_id": 1, "send_event_list": [7]}), ("e", {}, {"send_event_list": [8]}),
              ("f", {}, {"stream_id": 1})],
         options="stream-fusion=1")
gen_case("kernel_infos", "two_senders_of_one_event", "op_list[1]", "send_event_list", "two ops send", "100",
         ops=[("a", {}, {"send_event_list": [100]}), ("b", {}, {"stream_id": 1, "send_event_list": [100]}),
              ("c", {}, {"recv_event_list": [100]})], options="stream-fusion=1")
gen_case("kernel_infos", "send_recv_in_one_stream", "op_list[1]", "recv_event_list", "within one stream",
         ops=[("a", {}, EV), ("b", {}, {"recv_event_list": [100]})])
gen_case("kernel_infos", "send_recv_across_streams_then_in_one", "op_list[2]", "recv_event_list",
         "within one stream", "op_list[1]", "[2]",
         ops=[("a", {}, {"send_event_list": [1]}), ("b", {}, {"stream_id": 1, "recv_event_list": [1],
                                                             "send_event_list": [2]}),
              ("c", {}, {"stream_id": 1, "recv_event_list": [2]})], options="stream-fusion=1")
gen_case("kernel_infos", "sync_all_op_on_fewer_cores", "op_list[1] (b__kernel0)", "SyncAll<true>",
         "blockDim 4: 4 AIV cores", "block dim 16: 16 AIV cores", "hangs", "feed-sync-all=1",
         ops=[("a", {"kernel_type": AIV, "block_dim": 16}, {}),
              ("b", {"kernel_type": AIV, "block_dim": 4, "sub_op_with_sync_all": True}, {})])
gen_case("kernel_infos", "mix_1_2_op_in_1_1_superkernel", "op_list[0] (m__kernel0)",
         "second vector sub-block does not exist", "KERNEL_TYPE_MIX_AIC_1_1 SuperKernel", "allow-mix-1-2-in-1-1=1",
         ops=[("m", {"kernel_type": "KERNEL_TYPE_MIX_AIC_1_2", "block_dim": 4}, {}), ("c", {"block_dim": 8}, {})])
gen_case("kernel_infos", "op_sends_and_receives_same_event", "op_list[1]", "sends and receives", "100",
         ops=[("a", {}, {}), ("b", {}, {"send_event_list": [100], "recv_event_list": [100]}), ("c", {}, {})],
         options="stream-fusion=1")
gen_case("kernel_infos", "early_start_flags_with_early_start_0", "op_list[0]", "early start", "early-start=0",
         ops=[("a", {"sub_operator_early_start_set_flag": True}, {})], options="early-start=0")


# ---------------------------------------------------------------- sub-op JSON (sk gen)

def subop_case(name, mutate, *keywords, ops=None, options="", which="a"):
    gen_case("sub_op_json", name, *keywords, ops=ops, options=options,
             edit=lambda d, ki: edit_json(os.path.join(d, f"{which}.json"), mutate))


@case("sub_op_json", "not_found", "op_list[1].json_path", "not found", "'b.json'")
def _(tmp):
    ki = fusion(os.path.join(tmp, "in"))
    os.unlink(os.path.join(tmp, "in", "b.json"))
    return gen_argv(tmp, ki)


@case("sub_op_json", "not_json", "op_list[0].json_path", "a.json", "not valid json")
def _(tmp):
    ki = fusion(os.path.join(tmp, "in"))
    with open(os.path.join(tmp, "in", "a.json"), "w") as f:
        f.write('{"kernelName": ')
    return gen_argv(tmp, ki)


subop_case("not_object", lambda d: d.clear() or d.update({"x": 1}), "a.json", "kernelname", "c identifier")
subop_case("unknown_kernel_type", _set(["sub_operator_kernel_type"], "KERNEL_TYPE_MIX"),
           "op_list[0] (a__kernel0) a.json: sub_operator_kernel_type", "unsupported", "'KERNEL_TYPE_MIX'",
           "KERNEL_TYPE_AIV_ONLY")
subop_case("kernel_type_number", _set(["sub_operator_kernel_type"], 1), "sub_operator_kernel_type",
           "wrong type", "1")
subop_case("missing_block_dim", _drop(["blockDim"]), "a__kernel0", "blockDim", "required field is missing")
subop_case("block_dim_string", _set(["blockDim"], "8"), "blockDim", "wrong type", "'8'")
subop_case("block_dim_zero", _set(["blockDim"], 0), "blockDim", "must be positive", "0")
subop_case("dump_without_buffer_size", _set(["debugOptions"], "printf"), "a__kernel0", "debugBufSize",
           "asks for a dump", "'printf'", "buffer size in bytes")
subop_case("params_not_identifiers", _set(["sub_operator_params"], ["x", "1y"]), "sub_operator_params",
           "c identifiers", "'1y'")
subop_case("split_mode_out_of_range", _set(["split_mode"], 100), "split_mode", "1 to 64", "100")
subop_case("early_start_flag_missing", _drop(["sub_operator_early_start_wait_flag"]), "a__kernel0",
           "sub_operator_early_start_wait_flag", "required field is missing", "true or false")
subop_case("flag_not_boolean", _set(["sub_op_with_sync_all"], "yes"), "sub_op_with_sync_all", "boolean",
           "'yes'")
subop_case("missing_core_type_entry", _set(["sub_operator_kernel_type"], "KERNEL_TYPE_MIX_AIC_1_1"),
           "sub_operator_kernel_name.dav-c220-cube", "missing entry", "KERNEL_TYPE_MIX_AIC_1_1")
subop_case("func_name_missing", _drop(["sub_operator_kernel_name", "AiCore", "func_name"]),
           "sub_operator_kernel_name.AiCore.func_name", "func_name", "c identifier")
subop_case("obj_files_not_found", _set(["sub_operator_kernel_name", "AiCore", "obj_files"], "zz.o"),
           "sub_operator_kernel_name.AiCore.obj_files", "not found", "'zz.o'")
gen_case("sub_op_json", "split_mode_mismatch", "op_list[0] (a__kernel0)", "split_mode differs", "2",
         "split-mode is 4", ops=[("a", {"split_mode": 2}, {})])
gen_case("sub_op_json", "mix_keyed_for_c220_on_ascend950", "op_list[0] (m__kernel0)",
         "sub_operator_kernel_name.dav-c220-cube", "keyed for another chip", "'dav-c220-cube'",
         "aicore, dav-c310-cube, dav-c310-vec", ops=MIX12, extra=("--soc", "Ascend950PR_9579"))
gen_case("sub_op_json", "dynamic_without_table", "op_list[0]", "dynamic_func_names", "non-empty",
         ops=[("a", {}, {"task_type": "dynamic"})])
gen_case("sub_op_json", "dynamic_key_not_number",
         "dynamic_func_names.two", "tiling key", "'two'",
         ops=[("a", {}, {"task_type": "dynamic"})],
         edit=lambda d, ki: edit_json(os.path.join(d, "a.json"), lambda doc: doc["sub_operator_kernel_name"].update(
             dynamic_func_names={"two": {"kernel_type": "KERNEL_TYPE_AIC_ONLY", "AiCore": "a__kernel0_middle"}})))


# ---------------------------------------------------------------- ELF objects (sk gen, sk subkernel pack)

def elf_case(name, replace, *keywords, target="a.o"):
    """Replaces the fixture object `target` with replace(path) before sk gen."""
    gen_case("elf", name, *keywords, edit=lambda d, ki: replace(os.path.join(d, target)))


def _write(data):
    def replace(path):
        with open(path, "wb") as f:
            f.write(data)
    return replace


def _truncate(keep):
    def replace(path):
        with open(path, "rb") as f:
            data = f.read()
        with open(path, "wb") as f:
            f.write(data[:keep] if keep > 0 else data[:len(data) + keep])
    return replace


elf_case("not_elf", _write(b"this is a text file\n"), "op_list[0] (a__kernel0).bin_path", "not an elf object",
         "'a.o'", "ar archive")
elf_case("truncated_header", _truncate(40), "op_list[0]", "truncated or corrupt", "'a.o'", "rebuild")
elf_case("truncated_tail", _truncate(-200), "op_list[0]", "truncated or corrupt", "past the end")
elf_case("elf32", lambda p: make_elf32(p, ["a__kernel0_middle"]), "op_list[0]", "wrong elf class", "elf32",
         "64-bit")
elf_case("entry_symbol_missing", lambda p: make_object(p, ["other_func"]), "sub_operator_kernel_name.AiCore",
         "does not define the sub-kernel entry symbol", "'a__kernel0_middle'", "other_func")
elf_case("entry_is_data_not_function", lambda p: make_data_object(p, ["a__kernel0_middle"]),
         "sub_operator_kernel_name.AiCore", "a__kernel0_middle", "not a function", "object")
elf_case("split_copy_lacks_renamed_symbol", lambda p: make_object(p, ["a__kernel0_middle"]),
         "split copy", "a_split2.o", "'a__kernel0_middle_split2'", target="a_split2.o")
elf_case("empty_file", _write(b""), "op_list[0]", "not an elf object")


@case("elf", "archive_member_missing", "op_list[0]", "not a member", "'a.o'", "members of a.a")
def _(tmp):
    d = os.path.join(tmp, "in")
    ki = fusion(d)
    from badinputs import make_object as mk
    import subprocess
    other = mk(os.path.join(d, "other.o"), ["x"])
    subprocess.run(["ar", "rcs", os.path.join(d, "a.a"), other], check=True)
    edit_json(ki, _set(["op_list", 0, "bin_path"], "a.a"))
    return gen_argv(tmp, ki)


@case("elf", "archive_negative_member_size", "op_list[0]", "a.a", "corrupt ar archive", "'-60'")
def _(tmp):
    d = os.path.join(tmp, "in")
    ki = fusion(d)
    header = (b"a.o/".ljust(16) + b"0".ljust(12) + b"0".ljust(6) + b"0".ljust(6) + b"100644".ljust(8)
              + b"-60".ljust(10) + b"`\n")
    with open(os.path.join(d, "a.a"), "wb") as f:
        f.write(b"!<arch>\n" + header + b"x" * 100)
    edit_json(ki, _set(["op_list", 0, "bin_path"], "a.a"))
    return gen_argv(tmp, ki)


@case("elf", "entry_symbol_clash_between_ops", "op_list[1]", "a__kernel0_middle", "op_list[0]", "b.o", "a.o")
def _(tmp):
    """Two different objects export the same sub-kernel entry: the fused entry could call only one of them."""
    d = os.path.join(tmp, "in")
    ki = fusion(d, ops=[("a", {}, {}), ("b", {}, {})])
    edit_json(os.path.join(d, "b.json"), _set(["sub_operator_kernel_name", "AiCore", "func_name"],
                                               "a__kernel0_middle"))
    for i in range(4):
        suffix = f"_split{i}" if i else ""
        make_object(os.path.join(d, f"b{suffix}.o"), [f"a__kernel0_middle{suffix}"])
    return gen_argv(tmp, ki)


def _pack_argv(tmp, kernel_obj, wrapper_obj, entry="k"):
    ld, objcopy = shutil.which("ld"), shutil.which("objcopy")
    return ["subkernel", "pack", "--toolchain", "host", "--ld", ld, "--objcopy", objcopy,
            "--kernel-type", "AIV_ONLY", "--block-dim", "8", "--options", "split-mode=2",
            "--kernel-obj", kernel_obj, "--wrapper-obj", wrapper_obj, "--entry", entry,
            "--sync-scan", no_calls_scan(os.path.join(tmp, "scan.json")),
            "--out-obj", os.path.join(tmp, "out", "k.o"), "--out-json", os.path.join(tmp, "out", "k.json")]


@case("elf", "pack_symbol_clash_kernel_defines_wrapper_function", "merging kernel and wrapper",
      "multiple definition", "k_middle")
def _(tmp):
    """The kernel already defines the SK-mode function the wrapper defines: ld -r cannot merge them."""
    kernel = make_object(os.path.join(tmp, "kernel.o"), ["k", "k_middle"], 16)
    wrapper = make_object(os.path.join(tmp, "wrapper.o"), ["k_middle"], 16)
    return _pack_argv(tmp, kernel, wrapper)


@case("elf", "pack_kernel_lacks_entry", "kernel.o", ": k:", "does not define the entry function", "--entry")
def _(tmp):
    kernel = make_object(os.path.join(tmp, "kernel.o"), ["not_k"], 16)
    wrapper = make_object(os.path.join(tmp, "wrapper.o"), ["k_middle"], 16)
    return _pack_argv(tmp, kernel, wrapper)


@case("elf", "pack_kernel_not_elf", "kernel.o", "merging kernel and wrapper", "file format not recognized")
def _(tmp):
    kernel = os.path.join(tmp, "kernel.o")
    with open(kernel, "w") as f:
        f.write("not an object\n")
    wrapper = make_object(os.path.join(tmp, "wrapper.o"), ["k_middle"], 16)
    return _pack_argv(tmp, kernel, wrapper)


# ---------------------------------------------------------------- tool outputs fed back by hand (sk report, link)

def _json_file(tmp, name, text):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write(text)
    return path


@case("plan", "report_plan_is_a_list", "plan.json", "must be a json object", "'list'", "--plan-out")
def _(tmp):
    plan = _json_file(tmp, "plan.json", "[]")
    return ["report", "--plan", plan, "--meta", plan, "-o", os.path.join(tmp, "out", "r.md")]


@case("plan", "report_plan_lacks_fields", "plan.json", "not a plan written by", "kernel_type")
def _(tmp):
    plan = _json_file(tmp, "plan.json", '{"kernel_name": "x"}')
    return ["report", "--plan", plan, "--meta", plan, "-o", os.path.join(tmp, "out", "r.md")]


@case("plan", "link_plan_not_json", "plan.json", "plan is not valid json", "line 1")
def _(tmp):
    plan = _json_file(tmp, "plan.json", "{")
    return ["link", "--toolchain", "host", "--ld", "ld", "--objcopy", "objcopy", "--plan", plan, "--meta-in", plan,
            "--out-obj", os.path.join(tmp, "out", "x.o"), "--out-json", os.path.join(tmp, "out", "x.json")]


# ---------------------------------------------------------------- model descriptions (sk run)

KERNEL_SRC = '#include "kernel_operator.h"\nextern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR z) {}\n'


def _model():
    return {
        "name": "m",
        "tensors": {"x": {"dtype": "float32", "shape": [64]}, "z": {"dtype": "float32", "shape": [64]},
                    "w": {"dtype": "float32", "shape": [64]}},
        "kernels": {"k": {"src": "k.cpp", "kernel_type": "AIV_ONLY", "block_dim": 4, "inputs": ["x"],
                          "outputs": ["z"]}},
        "ops": [{"name": "a", "kernel": "k", "bind": {"x": "x", "z": "z"}},
                {"name": "b", "kernel": "k", "bind": {"x": "z", "z": "w"}},
                {"name": "c", "kernel": "k", "bind": {"x": "w", "z": "x"}}],
        "super_kernels": [{"name": "s", "ops": ["a", "b"]}],
    }


def model_case(name, mutate, *keywords):
    def build(tmp):
        doc = _model()
        mutate(doc)
        with open(os.path.join(tmp, "k.cpp"), "w") as f:
            f.write(KERNEL_SRC)
        path = os.path.join(tmp, "model.json")
        with open(path, "w") as f:
            json.dump(doc, f)
        return ["run", "--model", path, "--build-dir", os.path.join(tmp, "build"),
                "--prof-dir", os.path.join(tmp, "out")]
    case("model", name, *keywords)(build)


@case("model", "file_not_found", "model.json", "not found", "--model")
def _(tmp):
    return ["run", "--model", os.path.join(tmp, "model.json"), "--prof-dir", os.path.join(tmp, "out")]


model_case("unknown_kernel", _set(["ops", 1, "kernel"], "kk"), "ops[1].kernel", "unknown kernel", "'kk'",
           "one of the model's kernels: k")
model_case("unbound_param", _drop(["ops", 0, "bind", "z"]), "ops[0].bind.z", "not bound", "bind every input")
model_case("bind_unknown_param", _set(["ops", 0, "bind", "q"], "x"), "ops[0].bind.q", "no such parameter",
           "k parameters: x, z")
model_case("bind_unknown_tensor", _set(["ops", 0, "bind", "z"], "nope"), "ops[0].bind.z", "unknown tensor",
           "'nope'")
model_case("scope_not_consecutive", _set(["super_kernels", 0, "ops"], ["a", "c"]), "super_kernels[0].ops",
           "consecutive", "['a', 'c']")
model_case("op_in_two_scopes", lambda d: d["super_kernels"].append({"name": "t", "ops": ["b", "c"]}),
           "super_kernels[1].ops", "already in another superkernel", "'b'")
model_case("scope_unknown_op", _set(["super_kernels", 0, "ops"], ["a", "zz"]), "super_kernels[0].ops",
           "unknown op", "'zz'")
model_case("tensor_shape_zero", _set(["tensors", "x", "shape"], [0]), "tensors.x.shape", ">= 1", "0")
model_case("tensor_shape_not_list", _set(["tensors", "x", "shape"], 64), "tensors.x.shape", "non-empty list",
           "64")
model_case("tensor_too_large", _set(["tensors", "x", "shape"], [1 << 20, 1 << 20]), "tensors.x",
           "too large", "bytes")
model_case("dtype_unknown", _set(["tensors", "x", "dtype"], "bfloat99"), "tensors.x.dtype", "unsupported",
           "'bfloat99'", "float32")
model_case("dtype_not_string", _set(["tensors", "x", "dtype"], ["float32"]), "tensors.x.dtype",
           "unsupported", "float32")
model_case("kernel_not_string", _set(["ops", 0, "kernel"], ["k"]), "ops[0].kernel", "unknown kernel")
model_case("kernel_type_unknown", _set(["kernels", "k", "kernel_type"], "AIV"), "kernels.k.kernel_type",
           "unsupported kernel type", "'AIV'")
model_case("kernel_src_not_string", _set(["kernels", "k", "src"], 3), "kernels.k.src", "3")
model_case("op_type_not_string", _set(["kernels", "k", "op_type"], 7), "kernels.k.op_type", "string", "7")
model_case("block_dim_zero", _set(["kernels", "k", "block_dim"], 0), "kernels.k.block_dim", ">= 1")
model_case("stream_negative", _set(["ops", 1, "stream"], -1), "ops[1].stream", ">= 0", "-1")
model_case("events_repeated", _set(["ops", 0, "send_events"], [4, 4]), "ops[0].send_events", "twice", "[4, 4]")
model_case("events_not_ids", _set(["ops", 1, "recv_events"], ["e1"]), "ops[1].recv_events", "event ids",
           "['e1']")
# The engine's own check of the op_list the model's streams make (facts §14.1).
model_case("stream_self_send_recv",
           lambda d: (d["ops"][0].update(send_events=[6]), d["ops"][1].update(recv_events=[6])),
           "op_list[1]", "within one stream", "put the ops on different streams")
model_case("tiling_values_overflow",
           lambda d: (d["kernels"]["k"].update(tiling=True),
                      [o.update(tiling={"dtype": "int8", "values": [1000]}) for o in d["ops"]]),
           "ops[0].tiling.values", "do not fit int8")
model_case("tiling_missing", lambda d: d["kernels"]["k"].update(tiling=True), "ops[0].tiling",
           "takes a tiling parameter")
model_case("workspace_too_large", _set(["ops", 0, "workspace_bytes"], 1 << 40), "ops[0].workspace_bytes",
           "too large")
model_case("scope_options_bad", _set(["super_kernels", 0, "options"], "split-mode=0"), "option 'split-mode'",
           "1 to 64")
model_case("super_kernels_not_list", _set(["super_kernels"], {"name": "s"}), "super_kernels", "must be a list", "'dict'")
model_case("unknown_field", _set(["opz"], []), "model.json.opz", "unknown field")


# ---------------------------------------------------------------- numbers past their type's range (issue 24)
# Upstream's types: uint32 block dims, uint64 sizes and tiling keys, int32 event ids and streams. A value
# past the range would be truncated by the compiler into another, valid-looking one.

subop_case("block_dim_2_32", _set(["blockDim"], 2 ** 32), "blockDim", "out of range", "4294967296",
           "0 to 4294967295", "uint32_t")
subop_case("block_dim_10_30", _set(["blockDim"], 10 ** 30), "blockDim", "out of range", "uint32_t")
subop_case("debug_buf_size_2_64", _set(["debugBufSize"], 2 ** 64), "debugBufSize", "out of range",
           "18446744073709551616", "uint64_t")
ki_case("event_id_10_40", _set(["op_list", 0, "send_event_list"], [10 ** 40]), "op_list[0].send_event_list[0]",
        "event id", "out of range", "int32_t")
ki_case("event_id_2_31", _set(["op_list", 1, "recv_event_list"], [2 ** 31]), "op_list[1].recv_event_list[0]",
        "out of range", "2147483647")
ki_case("stream_id_2_31", _set(["op_list", 1, "stream_id"], 2 ** 31), "op_list[1].stream_id", "out of range",
        "int32_t")
gen_case("sub_op_json", "dynamic_key_2_64", "dynamic_func_names.18446744073709551616", "tiling key",
         "out of range", "uint64_t", ops=[("a", {}, {"task_type": "dynamic"})],
         edit=lambda d, ki: edit_json(os.path.join(d, "a.json"), lambda doc: doc["sub_operator_kernel_name"].update(
             dynamic_func_names={str(2 ** 64): {"kernel_type": "KERNEL_TYPE_AIC_ONLY",
                                                "AiCore": "a__kernel0_middle"}})))


@case("kernel_infos", "number_of_5000_digits", "kernel_infos.json", "too many digits", "line 1")
def _(tmp):
    path = os.path.join(tmp, "kernel_infos.json")
    with open(path, "w") as f:
        f.write('{"kernel_name": "k", "op_list": [{"stream_id": ' + "7" * 5000 + "}]}")
    return gen_argv(tmp, path)


@case("kernel_infos", "nested_900_deep", "kernel_infos.json", "nested deeper than 100 levels")
def _(tmp):
    path = os.path.join(tmp, "kernel_infos.json")
    with open(path, "w") as f:
        f.write('{"op_list": ' + "[" * 900 + "]" * 900 + "}")
    return gen_argv(tmp, path)


ki_case("kernel_name_10000_characters", _set(["kernel_name"], "k" * 10000), "kernel_infos.kernel_name",
        "too long", "at most 234 characters")


@case("elf", "packed_facts_negative_text_size", "op_list[0] (a__kernel0)", "sk_archive.members.a.o.text_size",
      "out of range", "-5")
def _(tmp):
    from sk.binfmt import objfacts

    d = os.path.join(tmp, "in")
    ki = fusion(d)
    with open(os.path.join(d, "a.o"), "rb") as f:
        archive = ar.pack([("a.o", f.read())])
    with open(os.path.join(d, "a.a"), "wb") as f:
        f.write(archive)
    facts = objfacts.archive_facts(archive, "a.a")
    facts["members"]["a.o"]["text_size"] = -5
    edit_json(os.path.join(d, "a.json"), lambda doc: doc.update({objfacts.FACTS_KEY: facts}))
    edit_json(ki, _set(["op_list", 0, "bin_path"], "a.a"))
    return gen_argv(tmp, ki)


def _shstrndx(value):
    def replace(path):
        with open(path, "r+b") as f:
            f.seek(62)  # e_shstrndx of an ELF64 header
            f.write(value.to_bytes(2, "little"))
    return replace


elf_case("e_shstrndx_out_of_range", _shstrndx(0x7FF0), "op_list[0]", "a.o", "e_shstrndx 32752",
         "names no section")
elf_case("e_shstrndx_zero", _shstrndx(0), "op_list[0]", "a.o", "e_shstrndx 0", "names no section")
model_case("block_dim_2_32", _set(["kernels", "k", "block_dim"], 2 ** 32), "kernels.k.block_dim", "out of range",
           "uint32_t")
model_case("stream_2_31", _set(["ops", 1, "stream"], 2 ** 31), "ops[1].stream", "out of range", "int32_t")
model_case("event_id_10_40", _set(["ops", 0, "send_events"], [10 ** 40]), "ops[0].send_events[0]", "event id",
           "out of range")


@case("model", "twin_timeout_overflows", "SK_TWIN_TIMEOUT_MS='18446744073710'", "from 1 to 4294967295",
      env={"SK_TWIN_TIMEOUT_MS": "18446744073710"})
def _(tmp):
    doc = _model()
    with open(os.path.join(tmp, "k.cpp"), "w") as f:
        f.write(KERNEL_SRC)
    path = os.path.join(tmp, "model.json")
    with open(path, "w") as f:
        json.dump(doc, f)
    return ["run", "--model", path, "--build-dir", os.path.join(tmp, "build"), "--prof-dir", os.path.join(tmp, "out"),
            "--repeat", "1"]


# ---------------------------------------------------------------- paths that are not regular files (issue 24)
# /dev/zero would grow memory without end, a FIFO block the read for ever.

def _fifo(path):
    os.mkfifo(path)
    return path


@case("special_files", "kernel_infos_dev_zero", "--kernel-infos", "character device", "not a regular file")
def _(tmp):
    return gen_argv(tmp, "/dev/zero")


@case("special_files", "kernel_infos_fifo", "--kernel-infos", "fifo", "not a regular file")
def _(tmp):
    return gen_argv(tmp, _fifo(os.path.join(tmp, "kernel_infos.json")))


@case("special_files", "kernel_infos_directory", "--kernel-infos", "directory", "not a regular file")
def _(tmp):
    return gen_argv(tmp, tmp)


@case("special_files", "sub_op_json_fifo", "op_list[1].json_path", "b.json", "fifo", "not a regular file")
def _(tmp):
    ki = fusion(os.path.join(tmp, "in"))
    os.unlink(os.path.join(tmp, "in", "b.json"))
    _fifo(os.path.join(tmp, "in", "b.json"))
    return gen_argv(tmp, ki)


@case("special_files", "object_dev_zero", "op_list[0]", "character device", "not a regular file")
def _(tmp):
    ki = fusion(os.path.join(tmp, "in"))
    edit_json(ki, _set(["op_list", 0, "bin_path"], "/dev/zero"))
    return gen_argv(tmp, ki)


@case("special_files", "object_fifo", "op_list[0]", "fifo", "not a regular file")
def _(tmp):
    ki = fusion(os.path.join(tmp, "in"))
    os.unlink(os.path.join(tmp, "in", "a.o"))
    _fifo(os.path.join(tmp, "in", "a.o"))
    return gen_argv(tmp, ki)


@case("special_files", "model_dev_zero", "/dev/zero", "character device", "not a regular file")
def _(tmp):
    return ["run", "--model", "/dev/zero", "--prof-dir", os.path.join(tmp, "out")]


@case("special_files", "report_plan_fifo", "plan.json", "fifo", "not a regular file")
def _(tmp):
    plan = _fifo(os.path.join(tmp, "plan.json"))
    return ["report", "--plan", plan, "--meta", plan, "-o", os.path.join(tmp, "out", "r.md")]


@case("special_files", "param_file_fifo", "@", "params", "fifo", "not a regular file")
def _(tmp):
    return ["@" + _fifo(os.path.join(tmp, "gen.params"))]


@case("special_files", "param_file_includes_itself", "@self.params", "includes itself",
      "'@self.params -> @self.params'")
def _(tmp):
    with open(os.path.join(tmp, "self.params"), "w") as f:
        f.write("version\n@self.params\n")
    return ["@self.params"]


@case("special_files", "plan_out_is_a_directory", "--plan-out", "is a directory")
def _(tmp):
    ki = fusion(os.path.join(tmp, "in"))
    os.makedirs(os.path.join(tmp, "planned"))
    return gen_argv(tmp, ki, "--plan-out", os.path.join(tmp, "planned"))


# ---------------------------------------------------------------- the check

@pytest.mark.parametrize("build,keywords,env", CASES)
def test_bad_input_is_exit_2_with_culprit_and_no_traceback(tmp_path, build, keywords, env):
    argv = build(str(tmp_path))
    res = sk(argv, cwd=str(tmp_path), env=env)
    assert res.rc == 2, f"exit {res.rc}\nstdout: {res.out}\nstderr: {res.err}"
    assert "Traceback" not in res.err + res.out
    assert "internal error" not in res.err
    lines = [line for line in res.err.splitlines() if ": error: " in line]
    assert len(lines) == 1, res.err
    for word in keywords:
        assert word.lower() in lines[0].lower(), f"{word!r} not in: {lines[0]}"
    out = tmp_path / "out"
    assert not out.exists() or not [p for p in out.rglob("*") if p.is_file()], \
        f"a failed command left outputs: {sorted(map(str, out.rglob('*')))}"


def test_catalog_is_at_least_60_distinct_inputs():
    ids = [c.id for c in CASES]
    assert len(ids) == len(set(ids)) and len(ids) >= 60, len(ids)
