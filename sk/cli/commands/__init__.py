"""One module per `python -m sk` command (see sk/cli/main.py)."""
