"""`sk model`: the model an sk_model declares in BUILD, merged with its data file into one
self-contained model file (what `sk run --model` reads outside Bazel; Bazel's sk_model writes it)."""


from sk.cli import gates as g


def configure(parser):
    parser.add_argument("--built", metavar="MANIFEST", required=True, type=g.JSON,
                        help="the sk_model manifest (its `build` section: kernels, ops, scopes from BUILD)")
    parser.add_argument("--data", required=True, type=g.JSON, help="the sk_model's data file (tensors, per-op runtime data)")
    parser.add_argument("-o", dest="out", required=True, type=g.OUTFILE, help="model JSON to write (kernel sources relative to it)")


def run(args) -> int:
    from sk.twin.run import write_model

    write_model(args.built, args.data, args.out)
    return 0
