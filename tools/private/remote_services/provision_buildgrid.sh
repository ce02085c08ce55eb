#!/usr/bin/env bash
# provision_buildgrid.sh [HOME_DIR]
#
# Puts BuildGrid (a Remote Execution API server: CAS, action cache, execution
# and bots services; Python, from pip's configured index) into a venv at
# HOME_DIR/buildgrid. Idempotent. Env: SK_BUILDGRID_VERSION (default 0.2.53).
# Why 0.2.53 and not the newest: from 0.3.0 on, BuildGrid's scheduler (needed
# for remote execution) refuses every database but PostgreSQL; 0.2.53 still
# takes an SQLite file, so the farm needs no database server. Its dependencies
# are pinned by buildgrid-constraints.txt beside this file.
set -euo pipefail
here=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
rs_tag=remote_services/buildgrid
# shellcheck source=../debian.sh
. "$here/../debian.sh"

home=${1:-$(rs_home)}
version=${SK_BUILDGRID_VERSION:-0.2.53}
constraints=$here/buildgrid-constraints.txt
dest=$home/buildgrid
mkdir -p "$dest"
exec 9>"$dest/.lock"
flock 9
if [ "$(cat "$dest/.installed" 2>/dev/null)" = "buildgrid==$version" ] && [ -x "$dest/venv/bin/bgd" ]; then exit 0; fi

need_tools python3 flock
rm -rf "$dest/venv"
step "creating a venv for buildgrid==$version"
python3 -m venv "$dest/venv" > "$dest/venv.log" 2>&1 \
  || { cat "$dest/venv.log" >&2; die "python3 -m venv failed (package python3-venv missing?)"; }
step "installing buildgrid==$version from pip's configured index"
pin=()
[ "$version" = 0.2.53 ] && pin=(-c "$constraints")
"$dest/venv/bin/python" -m pip install -q "${pin[@]}" "buildgrid==$version" > "$dest/pip.log" 2>&1 \
  || { tail -20 "$dest/pip.log" >&2; die "could not install buildgrid==$version with pip (check pip's index configuration)"; }
"$dest/venv/bin/bgd" --help > /dev/null 2>&1 || die "bgd from buildgrid==$version does not start"
echo "buildgrid==$version" > "$dest/.installed"
step "ready: buildgrid==$version in $dest/venv"
