"""sk: the SuperKernel action tool of rules_superkernel.

This package owns every SuperKernel rule (options, plan, barriers, layout,
code generation, linking); Starlark only gathers files and builds argv.
"""

import sys

__version__ = "0.1.0"

# The oldest Python the Ascend hosts run (openEuler 22.03 ships 3.9); kept in step with
# pyproject.toml's requires-python and toolchain/private/python_deps.bzl. Checked here,
# before any module that may use newer syntax or library calls is imported.
MIN_PYTHON = (3, 9)
if sys.version_info < MIN_PYTHON:
    sys.stderr.write("sk: rules_superkernel's sk tool needs Python %d.%d or newer; %s is Python %d.%d. "
                     "Run it with a newer python3 (under Bazel: --repo_env=SK_PYTHON=/path/to/python3).\n"
                     % (MIN_PYTHON + (sys.executable or "this interpreter",) + tuple(sys.version_info[:2])))
    raise SystemExit(2)
