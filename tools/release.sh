#!/usr/bin/env bash
# tools/release.sh VERSION [OUT_DIR]
#
# Makes the release archive of rules_superkernel VERSION from the committed
# tree at HEAD: rules_superkernel-vVERSION.tar.gz in OUT_DIR (default
# dist/), unpacking to rules_superkernel-VERSION/ (the strip_prefix of
# .bcr/source.template.json), with VERSION stamped into the three places that
# carry it: MODULE.bazel's module(version), pyproject.toml and sk.__version__.
# The archive is byte-for-byte reproducible (git archive of one commit, fixed
# mtime, sorted, no owner names). It prints the `integrity` value the
# registry's source.json needs. Tag the commit vVERSION and attach the archive
# to that release; the BCR app fills .bcr/*.template.json from it.
set -euo pipefail
version=${1:?usage: tools/release.sh VERSION [OUT_DIR]}
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+([-.][0-9A-Za-z.]+)?$ ]] || { echo "release: '$version' is not a version like 1.2.3" >&2; exit 2; }
cd "$(dirname "$0")/.."
out=$(mkdir -p "${2:-dist}" && cd "${2:-dist}" && pwd)
[ -z "$(git status --porcelain --untracked-files=no)" ] || { echo "release: commit or stash your changes first (the archive is made from HEAD)" >&2; exit 2; }

name=rules_superkernel-$version
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git archive --format=tar --prefix="$name/" HEAD | tar -x -C "$work"
tree=$work/$name

stamp() {  # stamp FILE PYTHON_REGEX: the one line that carries the version
  python3 - "$tree/$1" "$2" "$version" <<'PY'
import re, sys
path, pattern, version = sys.argv[1:4]
text = open(path).read()
new, n = re.subn(pattern, lambda m: m.group(1) + version + m.group(2), text, count=1, flags=re.M)
if n != 1:
    sys.exit(f"release: no version line matching {pattern!r} in {path}")
open(path, "w").write(new)
PY
}
stamp MODULE.bazel '^(    version = ")[^"]*(",)$'
stamp pyproject.toml '^(version = ")[^"]*(")$'
stamp sk/__init__.py '^(__version__ = ")[^"]*(")$'
# Development-only files stay out of the archive a consumer downloads.
rm -rf "$tree/user.bazelrc" "$tree/dist"

archive=$out/rules_superkernel-v$version.tar.gz
commit_time=$(git log -1 --format=%ct HEAD)
tar --sort=name --mtime="@$commit_time" --owner=0 --group=0 --numeric-owner --format=gnu \
  -C "$work" -cf - "$name" | gzip -n -9 > "$archive"
integrity=$(python3 -c 'import base64, hashlib, sys; print("sha256-" + base64.b64encode(hashlib.sha256(open(sys.argv[1], "rb").read()).digest()).decode())' "$archive")
echo "archive:   $archive"
echo "prefix:    $name"
echo "integrity: $integrity"
