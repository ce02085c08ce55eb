"""One module per `python -m sk` command (see sk/cli.py)."""
