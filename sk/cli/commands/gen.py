"""`sk gen`: plan a SuperKernel and write its source, kernel JSON and compile options."""

import sys


def configure(parser):
    parser.add_argument("--kernel-infos", required=True, metavar="FILE",
                        help="kernel_infos JSON (op_list, super_kernel_options, kernel_name)")
    parser.add_argument("--out-dir", required=True, metavar="DIR", help="directory for the outputs")
    parser.add_argument("--soc", default=None, metavar="SOC",
                        help="target SoC (default Ascend910_9391, the conformance SoC)")
    parser.add_argument("--plan-out", default=None, metavar="FILE", help="also write the plan as JSON")


def run(args) -> int:
    from sk.engine import subop
    from sk.render.genhelper import GenHelper, helper_share
    from sk.engine.platforms import get_platform

    platform = get_platform(args.soc)
    doc, base_dir = subop.read_kernel_infos(args.kernel_infos)
    name, options_text, op_list = subop.kernel_infos_header(doc)
    cut = helper_share(len(op_list))
    # Started before the planner is imported: the helper loads op_list[cut:] meanwhile,
    # then imports jinja2 and compiles the templates while this process plans.
    helper = GenHelper.start(op_list[cut:], base_dir, cut)
    try:
        from sk.engine.plan import build_plan

        ops = subop.load_ops(op_list[:cut], base_dir) + helper.loaded()
        plan = build_plan(subop.KernelInfos(kernel_name=name, options_text=options_text, ops=ops), platform)
        for warning in plan.warnings:
            print(f"sk gen: warning: {warning}", file=sys.stderr)
        from sk.render.outputs import write_outputs

        write_outputs(plan, args.out_dir, args.plan_out, helper)
    finally:
        helper.close()
    return 0
