"""The CANN launch implementation against the recording ACL stand-in: every call, every argument slot.

For each case (a SuperKernel of examples/launch; Bazel passes the driver, the
rendered header and the launch manifest in $SK_CANN_LAUNCH_CASES) the driver
fills every Args word with a distinct value and launches on a fake stream.
The expected calls are derived here from the plans and BUILD's manifest, not
from sk's launch code: per launch, the binary loaded once (its length and
hash), the kernel by name (the plan's kernel name, or the op's entry), the
argument list built slot by slot in the plan's order (ffts address first),
the launch with the plan's block count on the caller's stream.
"""

from __future__ import annotations

import json
import os
import re
import subprocess

import pytest

from sk.engine import planfacts

CASES = [c.split() for c in os.environ.get("SK_CANN_LAUNCH_CASES", "").split(";") if c.strip()]
pytestmark = pytest.mark.skipif(not CASES, reason="needs Bazel's built cases ($SK_CANN_LAUNCH_CASES)")

FFTS = 0xFF7500000
STREAM = 0x5157
ALIGN = 512


def _short(exec_path: str) -> str:
    """A generated file's runfiles path from its exec path (bazel-out/<config>/bin/<path>)."""
    return exec_path.split("/bin/", 1)[1] if exec_path.startswith("bazel-out/") else exec_path


def _fnv(data: bytes) -> int:
    h = 1469598103934665603
    for b in data:
        h = ((h ^ b) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return h


def _args_fields(header: str) -> list[str]:
    """The Args struct's fields in declaration order (each one 8-byte word)."""
    with open(header, encoding="utf-8") as f:
        body = f.read().split("struct Args {", 1)[1].split("};", 1)[0]
    return re.findall(r"^\s+(?:const void\*|void\*|uint64_t) (\w+) =", body, re.M)


def _files(case: list) -> tuple:
    """(driver, header, manifest) of a case: the driver, then the launch library's files in any order."""
    rest = case[1:]
    header = [f for f in rest if f.endswith("_launch.h")]
    manifest = [f for f in rest if f.endswith("launch.json")]
    assert [f for f in rest if f.endswith("_launch_cann.cc")], rest
    return case[0], header[0], manifest[0]


def _run(main: str, tmp_path, *extra) -> tuple[dict, list]:
    log = tmp_path / "acl.log"
    if log.exists():
        log.unlink()
    out = subprocess.run([main, *extra], capture_output=True, text=True, check=True,
                         env=dict(os.environ, SK_FAKE_ACL_LOG=str(log)))
    calls = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    return json.loads(out.stdout), calls


def _expected(manifest: dict, values: dict) -> list:
    """The calls a CANN launch must make, derived from BUILD's manifest and the plans."""
    ops = manifest["ops"]
    sk_ws = 0
    plans = {}
    for n, piece in enumerate(manifest["pieces"]):
        if "plan" in piece:
            with open(_short(piece["plan"]), encoding="utf-8") as f:
                plans[n] = json.load(f)
            sk_ws = max(sk_ws, planfacts.param_layout(plans[n]).workspace_bytes)
    ws_at, at = {}, (sk_ws + ALIGN - 1) // ALIGN * ALIGN if sk_ws else 0
    for op in ops:
        if op["kernel"]["workspace"]:
            ws_at[op["name"]] = at
            at = (at + op["kernel"]["workspace"] + ALIGN - 1) // ALIGN * ALIGN
    ws = values["workspace"]

    def op_param(op, k):
        p = op["kernel"]["params"][k]
        if p in op["kernel"]["tensor_params"]:
            return values[op["bind"].get(p, p)]
        if p == "workspace":
            return ws + ws_at[op["name"]]
        assert p == "tiling"
        return values[f"{op['name']}_tiling"]

    calls = []
    if plans:
        calls.append(("aclrtGetHardwareSyncAddr",))
    for n, piece in enumerate(manifest["pieces"]):
        with open(_short(piece["binary"]), "rb") as f:
            data = f.read()
        calls.append(("aclrtBinaryLoadFromData", len(data), _fnv(data)))
        if n in plans:
            doc = plans[n]
            kernel, blocks = doc["kernel_name"], doc["block_dim"]
            slots = []
            for s in planfacts.param_slots(doc):
                assert s is not None
                if s.kind == "ffts":
                    slots.append(FFTS)
                elif s.kind == "param":
                    slots.append(op_param(ops[piece["first"] + s.op], s.name))
                elif s.kind == "workspace":
                    slots.append(ws)
                else:
                    raise AssertionError(f"slot kind {s.kind} not in these cases")
        else:
            op = ops[piece["first"]]
            kernel, blocks = op["kernel"]["entry"], op["kernel"]["block_dim"]
            slots = [op_param(op, k) for k in range(len(op["kernel"]["params"]))]
        calls.append(("aclrtBinaryGetFunction", kernel))
        calls.append(("aclrtKernelArgsInit",))
        calls += [("aclrtKernelArgsAppend", 8, v) for v in slots]
        calls.append(("aclrtKernelArgsFinalize",))
        calls.append(("aclrtLaunchKernelWithConfig", blocks, STREAM))
    return calls


def _observed(calls: list) -> list:
    out = []
    for c in calls:
        name = c["call"]
        if name == "aclrtBinaryLoadFromData":
            out.append((name, c["length"], int(c["fnv1a64"], 16)))
        elif name == "aclrtBinaryGetFunction":
            out.append((name, c["kernel"]))
        elif name == "aclrtKernelArgsAppend":
            out.append((name, c["size"], int(c["value"], 16)))
        elif name == "aclrtLaunchKernelWithConfig":
            out.append((name, c["blocks"], int(c["stream"], 16)))
        else:
            out.append((name,))
    return out


def _handles_chain(calls: list) -> None:
    """Each GetFunction uses the binary just loaded, ArgsInit that function, Append/Finalize/Launch those args."""
    bin_, func, args = None, None, None
    for c in calls:
        if c["call"] == "aclrtBinaryLoadFromData":
            bin_ = c["bin"]
        elif c["call"] == "aclrtBinaryGetFunction":
            assert c["bin"] == bin_
            func = c["func"]
        elif c["call"] == "aclrtKernelArgsInit":
            assert c["func"] == func
            args = c["args"]
        elif c["call"] in ("aclrtKernelArgsAppend", "aclrtKernelArgsFinalize"):
            assert c["args"] == args
        elif c["call"] == "aclrtLaunchKernelWithConfig":
            assert (c["func"], c["args"]) == (func, args)


@pytest.mark.parametrize("case", CASES, ids=[os.path.basename(c[0]) for c in CASES])
def test_every_call_and_slot_matches_the_plan(case, tmp_path):
    main, header, manifest_path = _files(case)
    with open(manifest_path, encoding="utf-8") as f:
        manifest = json.load(f)
    fields = _args_fields(header)
    printed, calls = _run(main, tmp_path)
    assert printed["code"] == 0, printed["error"]
    assert len(fields) == len(printed["words"])
    values = {name: int(v, 16) for name, v in zip(fields, printed["words"])}
    assert _observed(calls) == _expected(manifest, values)
    _handles_chain(calls)


@pytest.mark.parametrize("case", CASES, ids=[os.path.basename(c[0]) for c in CASES])
def test_refused_arguments_make_no_acl_call(case, tmp_path):
    main, header, _ = _files(case)
    first = _args_fields(header)[0]
    printed, calls = _run(main, tmp_path, "refuse")
    assert printed["code"] == 1
    assert f"args.{first}" in printed["error"] and "null" in printed["error"]
    # Named after the super_kernel the user declared, and the CANN launch library that launched it.
    name = os.path.basename(case[0])[:-len("_cann_main")]
    assert printed["error"].startswith(f"//examples/launch:{name} (launched by //tests/launch:{name}_cann): "), \
        printed["error"]
    assert calls == []


def test_a_relative_log_path_under_bazel_run_is_relative_to_where_bazel_ran(tmp_path):
    """`SK_FAKE_ACL_LOG=acl.log bazel run //pkg:host` writes ./acl.log, not a file in the runfiles tree."""
    main = _files(CASES[0])[0]
    (tmp_path / "here").mkdir()
    (tmp_path / "elsewhere").mkdir()
    subprocess.run([os.path.abspath(main)], capture_output=True, text=True, check=True, cwd=tmp_path / "elsewhere",
                   env=dict(os.environ, SK_FAKE_ACL_LOG="acl.log", BUILD_WORKING_DIRECTORY=str(tmp_path / "here")))
    assert not (tmp_path / "elsewhere" / "acl.log").exists()
    calls = [json.loads(line) for line in (tmp_path / "here" / "acl.log").read_text().splitlines()]
    assert calls and calls[-1]["call"] == "aclrtLaunchKernelWithConfig", calls


def test_the_documented_host_program_records_one_launch(tmp_path):
    """examples/launch/run_tiled_cann (docs/launch.md): no ACL call of its own, then Launch records the
    calls of one launch, its stream as given."""
    log = tmp_path / "acl.log"
    out = subprocess.run([os.environ["SK_RUN_TILED_CANN"]], capture_output=True, text=True, check=True,
                         env=dict(os.environ, SK_FAKE_ACL_LOG=str(log)))
    assert "1 launch(es) of 40 blocks recorded" in out.stdout, out.stdout
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    assert [c["call"] for c in calls if c["call"] != "aclrtKernelArgsAppend"] == [
        "aclrtGetHardwareSyncAddr", "aclrtBinaryLoadFromData", "aclrtBinaryGetFunction", "aclrtKernelArgsInit",
        "aclrtKernelArgsFinalize", "aclrtLaunchKernelWithConfig"], calls
    assert calls[-1]["stream"] == hex(STREAM) and calls[-1]["blocks"] == 40, calls[-1]
    # Each line has exactly the keys docs/formats.md lists for its call, in that order.
    from sk.render.formats import ACL_CALLS

    keys = {f.name: ["call"] + f.type.split(", ") for f in ACL_CALLS}
    with open(log, encoding="utf-8") as f:
        for line in f:
            doc = json.loads(line)
            assert list(doc) == keys[doc["call"]], (doc, keys.get(doc["call"]))
