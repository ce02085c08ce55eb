"""The files `sk gen` writes for a plan: source, kernel JSON, compile options and the plan JSON.

Here (not in the CLI command) so that in-process callers (sk.twin.run) write
byte-identical files without going through argv.
"""

from __future__ import annotations

import json
import os

def dump_json(data) -> str:
    """`json.dumps(data, indent=2)` + newline (sk.base.jsontext writes the same text without json's slow path)."""
    from sk.base import jsontext

    return jsontext.dumps(data, indent=2) + "\n"


def dump_plan_json(plan: dict) -> str:
    """The plan file: one top-level key per line, one item of a top-level list per line.

    Still diffable per op, but each line is encoded by json's C encoder:
    `indent=` forces the pure-Python one, which took 0.6 s of `sk gen` for a
    6 MB plan of 1,200 sub-kernels (0.15 s this way). One encoder serves every
    line: json.dumps builds a new one per call (7,000 calls here).
    """
    dumps = _line_encoder()

    def value(v) -> str:
        if isinstance(v, list) and v:
            return "[\n" + ",\n".join("  " + dumps(item) for item in v) + "\n ]"
        return dumps(v)

    body = ",\n".join(f" {json.dumps(k)}: {value(v)}" for k, v in plan.items())
    return "{\n" + body + "\n}\n"


def _line_encoder():
    """A function with json.dumps(v)'s result (ensure_ascii, default separators), reusing one C encoder."""
    from json import encoder

    if encoder.c_make_encoder is None:  # no C accelerator in this interpreter
        return json.dumps
    # markers=None: no circular-reference check, which only ever raises; the text is the same.
    iterencode = encoder.c_make_encoder(None, encoder.JSONEncoder().default, encoder.encode_basestring_ascii,
                                        None, ": ", ", ", False, False, True)
    return lambda v: "".join(iterencode(v, 0))


def write_outputs(plan, out_dir: str, plan_out: str | None = None, renderer=None) -> dict:
    """Writes the generated files; returns {kind: path}.

    renderer: a started sk.render.genhelper.GenHelper, which renders the source while
    the JSON files are encoded here; without one the source is rendered first.
    """
    from sk.base.errors import SkError
    from sk.render import callcheck
    from sk.render.meta import kernel_json
    from sk.base.toolrun import write_files_atomic

    name = plan.kernel_name
    # In the order they appear: the kernel JSON, which describes the SuperKernel the others make,
    # last (toolrun.publish: a reader that finds it finds the rest, all from this run).
    files = {
        "source": os.path.join(out_dir, f"{name}_kernel.cpp"),
        "compile_options": os.path.join(out_dir, f"{name}.compile_options.json"),
    }
    if plan_out:
        files["plan"] = plan_out
    files["kernel_json"] = os.path.join(out_dir, f"{name}.json")
    if renderer is None:
        from sk.render.genhelper import GenHelper

        renderer = GenHelper()  # renders in this process
    renderer.submit(plan)
    contents = {
        "kernel_json": dump_json(kernel_json(plan)),
        "compile_options": dump_json(plan.compile_options),
    }
    if plan_out:
        contents["plan"] = dump_plan_json(plan.to_json())
    contents["source"] = renderer.result(as_file=True)
    # Nothing is written unless the entry calls every op and keeps every lock the plan owes (a bug otherwise).
    callcheck.check(plan, _text_of(contents["source"]))
    try:
        write_files_atomic({path: contents[kind] for kind, path in files.items()})
    except OSError as err:
        culprit = err.filename or out_dir
        option = "--plan-out" if plan_out and os.path.abspath(culprit) == os.path.abspath(plan_out) else "--out-dir"
        raise SkError(f"cannot write output ({err.strerror})", where=option, value=culprit) from None
    return files


def _text_of(source) -> str:
    """The source text, also where the renderer left it in a file (a toolrun.WrittenFile)."""
    if isinstance(source, str):
        return source
    if source.fd is not None:
        return os.pread(source.fd, os.fstat(source.fd).st_size, 0).decode("utf-8")
    with open(source.path, encoding="utf-8") as f:
        return f.read()


def generate(kernel_infos: str, out_dir: str, plan_out: str | None = None, *, soc: str | None = None, warn=None):
    """`sk gen`: plans the SuperKernel of a kernel_infos file and writes its files; returns the plan.

    warn: called with each planner warning before the files are written.
    """
    from sk.engine import subop
    from sk.engine.platforms import get_platform
    from sk.render.genhelper import GenHelper, helper_share

    platform = get_platform(soc)
    doc, base_dir = subop.read_kernel_infos(kernel_infos)
    name, options_text, op_list = subop.kernel_infos_header(doc)
    cut = helper_share(len(op_list))
    # Started before the planner is imported: the helper loads op_list[cut:] meanwhile,
    # then imports jinja2 and compiles the templates while this process plans.
    helper = GenHelper.start(op_list[cut:], base_dir, cut, out_dir=out_dir, platform=platform)
    try:
        from sk.engine.plan import build_plan

        ops = subop.load_ops(op_list[:cut], base_dir, platform=platform) + helper.loaded()
        plan = build_plan(subop.KernelInfos(kernel_name=name, options_text=options_text, ops=ops), platform)
        for warning in plan.warnings:
            if warn:
                warn(warning)
        write_outputs(plan, out_dir, plan_out, helper)
    finally:
        helper.close()
    return plan
