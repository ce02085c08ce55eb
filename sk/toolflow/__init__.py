"""Compiles and links: sub-kernels in SK mode, the generated entry, the SuperKernel link; the only home of tool argv."""
