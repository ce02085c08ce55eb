#!/usr/bin/env bash
# Only the determinism check (no cache involved): two clones, two output roots,
# different PYTHONHASHSEED/TZ/locale/spawn strategy; byte-identical artefacts
# free of paths, names, pids and timestamps.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
exec python3 "$here/../cache/sk_cache_check.py" determinism "$@"
