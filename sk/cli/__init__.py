"""Front ends: `python -m sk` commands, the persistent worker, upstream's compile() call shape."""
