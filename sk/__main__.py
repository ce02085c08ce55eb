"""`python -m sk`: one sk command per process, as a build action runs it."""

import gc
import os
import sys

# A process runs one command and exits. Its data (a 1,200-op plan is ~10^6 objects)
# lives until the end and holds no reference cycles worth collecting, so the cyclic
# collector would only walk it again and again: 8 % of `sk gen` at 1,200 sub-kernels.
gc.disable()

if "--persistent_worker" in sys.argv[1:]:  # Bazel starts sk as a persistent worker (sk.cli.worker)
    from sk.cli.worker import serve  # noqa: E402

    code = serve()
else:
    from sk.cli.main import main  # noqa: E402 - after gc.disable(), which also speeds up the imports

    code = main()
for stream in (sys.stdout, sys.stderr):
    try:
        stream.flush()
    except OSError:  # a closed pipe: nothing more can be said there
        pass
# Every output is written, closed and renamed into place by now, and helper processes are
# reaped; tearing down the interpreter's objects one by one would only add 5 % to `sk gen`.
os._exit(code)
