"""The CPU twin from Python: the ctypes binding of sk/runtime, models, separate vs fused runs."""
