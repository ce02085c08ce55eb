#!/usr/bin/env bash
# Entry point for CI (.ci/run): remote cache, determinism, cache resilience and
# remote execution checks of the SK build, against real loopback servers.
#   tests/cache/run_all.sh [CHECK...] [--targets //examples/...] [--mnemonics SkCompile,...] [--keep]
# Prints one line per check, then "N passed, N failed"; exit status 0 iff all pass.
# Tests the committed HEAD of this checkout (it clones it), not uncommitted edits.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
exec python3 "$here/sk_cache_check.py" "$@"
