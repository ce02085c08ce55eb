"""A recording stand-in for the CANN toolkit's tools (bisheng, ccec, ld.lld, llvm-objcopy).

Each tool in compiler/ccec_compiler/bin runs this script with its own name.
With SK_FAKE_CANN_LOG set, the call is appended to that file (one JSON line:
{"tool": name, "argv": [...]}) and then done with the host's tools, so sk's
CANN flow runs to its end here and its outputs can be checked:

* bisheng/ccec: g++ for the CPU twin, with the twin's defines for the
  `--cce-aicore-arch` side (the twin pretends to be a c220) and the twin's
  kernel_operator.h first on the include path (SK_FAKE_CANN_TWIN_INCLUDE);
  bisheng's own options (--cce-*, -mllvm pairs) are dropped;
* ld.lld: `-r` links with GNU ld; the placed final link (no -r) copies its
  input (the host cannot place an AI-core image);
* llvm-objcopy: GNU objcopy, which takes the same options sk and upstream use.

Without SK_FAKE_CANN_LOG it fails (exit 97): the analysis tests only read argv.
Host tools: SK_FAKE_CANN_CXX, SK_FAKE_CANN_LD, SK_FAKE_CANN_OBJCOPY (default g++, ld, objcopy from PATH).
"""

import json
import os
import shutil
import subprocess
import sys

TWIN_DEFINES = ["-D__CCE_KT_TEST__=1", "-D__CCE_AICORE__=220", "-D__DAV_C220__", "-D__NPU_ARCH__=2201"]
SIDE_DEFINES = {"cube": ["-D__DAV_C220_CUBE__", "-D__DAV_CUBE__"], "vec": ["-D__DAV_C220_VEC__", "-D__DAV_VEC__"]}


def compile_args(args):
    out, i = [], 0
    side = None
    while i < len(args):
        a = args[i]
        if a == "-mllvm":
            i += 2
            continue
        if a.startswith("--cce-aicore-arch="):
            side = a.rsplit("-", 1)[1]
        elif a == "-x" and i + 1 < len(args) and args[i + 1] == "cce":
            out += ["-x", "c++"]
            i += 2
            continue
        elif a.startswith("--cce-") or a == "-O3":
            pass
        else:
            out.append(a)
        i += 1
    twin = os.environ.get("SK_FAKE_CANN_TWIN_INCLUDE")
    return ["-O0", "-fPIC", *([f"-I{twin}"] if twin else []), *TWIN_DEFINES, *SIDE_DEFINES.get(side, []), *out]


def link_args(args):
    drop_next = {"-m"}
    out, i = [], 0
    while i < len(args):
        a = args[i]
        if a in drop_next:
            i += 2
            continue
        if a not in ("-Ttext=0", "-q", "-static"):
            out.append(a)
        i += 1
    return out


def main():
    tool, args = sys.argv[1], sys.argv[2:]
    log = os.environ.get("SK_FAKE_CANN_LOG")
    if not log:
        sys.stderr.write(f"fake CANN {tool}: set SK_FAKE_CANN_LOG to run it (analysis tests only read argv)\n")
        return 97
    with open(log, "a", encoding="utf-8") as f:
        f.write(json.dumps({"tool": tool, "argv": args}) + "\n")
    if tool in ("bisheng", "ccec"):
        argv = [os.environ.get("SK_FAKE_CANN_CXX", "g++"), *compile_args(args)]
    elif tool == "ld.lld":
        if "-r" not in args:
            at = args.index("-o")
            out = args[at + 1]
            src = [a for i, a in enumerate(args) if a.endswith(".o") and i != at + 1][0]
            if os.path.abspath(src) != os.path.abspath(out):  # upstream places its object in place
                shutil.copyfile(src, out)
            return 0
        argv = [os.environ.get("SK_FAKE_CANN_LD", "ld"), *link_args(args)]
    elif tool == "llvm-objcopy":
        argv = [os.environ.get("SK_FAKE_CANN_OBJCOPY", "objcopy"), *args]
    else:
        sys.stderr.write(f"fake CANN: unknown tool {tool}\n")
        return 2
    return subprocess.call(argv)


if __name__ == "__main__":
    sys.exit(main())
