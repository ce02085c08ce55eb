"""Entry point of sk_pytest targets: runs pytest on the files given as args."""

import os
import sys

import pytest

if __name__ == "__main__":
    argv = ["-p", "no:cacheprovider", "-q", "-ra"]
    xml = os.environ.get("XML_OUTPUT_FILE")
    if xml:
        argv += ["--junitxml", xml]
    # Bazel runs tests with cwd = runfiles root; rootdir there keeps ids short.
    sys.exit(pytest.main(argv + sys.argv[1:]))
