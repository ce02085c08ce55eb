"""sk: the SuperKernel action tool of rules_superkernel.

This package owns every SuperKernel rule (options, plan, barriers, layout,
code generation, linking); Starlark only gathers files and builds argv.
"""

__version__ = "0.1.0"
