"""The fusion engine: options, platforms, the sub-op model and the plan (every SuperKernel decision, as data)."""
