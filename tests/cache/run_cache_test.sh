#!/usr/bin/env bash
# Only the remote cache check: two clones, one nginx cache, 100% hits expected.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
exec python3 "$here/sk_cache_check.py" cache "$@"
