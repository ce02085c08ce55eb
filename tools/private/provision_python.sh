#!/usr/bin/env bash
# provision_python.sh HOME_DIR
#
# Puts CPython 3.9 (the oldest Python the sk tool supports) into HOME_DIR, as
# provision_bazel.sh puts Bazel: no root, no system package touched, only the
# Debian mirror apt is configured with (no host is named here).
#   * Debian 11 (bullseye) packages CPython 3.9; its binaries are built for an
#     older glibc than any current host has, so they run on the host's libc.
#     The few libraries bullseye has and newer hosts lack (libffi7 for ctypes,
#     which the CPU twin's binding uses; libssl1.1 for pip over https) are
#     unpacked beside it and found through the interpreter's RPATH.
#   * pip is Debian's python-pip-whl wheel (20.3.4, with distutils, which it imports), put where Debian's
#     python3.9 looks for packages (<prefix>/lib/python3/dist-packages), so
#     `python3.9 -m pip` and a `venv --system-site-packages` of it install the
#     project's hash-pinned requirement files with the markers evaluated for 3.9.
# Env: SK_DEBIAN_MIRROR, SK_PYTHON39_SUITE (default bullseye).
set -euo pipefail

home=${1:?usage: provision_python.sh HOME_DIR}
mkdir -p "$home"
home=$(cd "$home" && pwd)
suite=${SK_PYTHON39_SUITE:-bullseye}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
rs_tag="tools/python3.9"
# shellcheck source=debian.sh
. "$here/debian.sh"

exec 9>"$home/.lock"
flock 9
if [ -f "$home/.installed" ] && [ -x "$home/bin/python3.9" ]; then exit 0; fi

need_tools apt-get dpkg-deb flock
[ "$(uname -m)" = x86_64 ] || die "provisioning is only implemented for x86_64 hosts; give a Python 3.9 yourself"

work=$home/.work
rm -rf "$home/root" "$home/bin" "$work"
mkdir -p "$work" "$home/root" "$home/bin"

step "1/4 Debian package index ($suite)"
apt_view "$work" "$suite" bookworm
pkgs="python3.9-minimal libpython3.9-minimal libpython3.9-stdlib python3-distutils python3-lib2to3 libffi7 libssl1.1 python-pip-whl"
step "2/4 downloading $pkgs"
# shellcheck disable=SC2086
download_debs "$work/debs" $(for p in $pkgs; do printf '%s/%s ' "$p" "$suite"; done)
download_debs "$work/debs" patchelf/bookworm

step "3/4 unpacking into $home/root"
for p in $pkgs; do dpkg-deb -x "$(ls "$work/debs/${p}"_*.deb | head -1)" "$home/root"; done
dpkg-deb -x "$(ls "$work"/debs/patchelf_*.deb | head -1)" "$work/patchelf"
libdir=$home/root/usr/lib/x86_64-linux-gnu
# DT_RPATH (not RUNPATH) of the executable also serves the extension modules it dlopens.
"$work/patchelf/usr/bin/patchelf" --force-rpath --set-rpath "$libdir" "$home/root/usr/bin/python3.9"
site=$home/root/usr/lib/python3/dist-packages
mkdir -p "$site"
wheel=$(ls "$home"/root/usr/share/python-wheels/pip-*.whl | head -1)
"$home/root/usr/bin/python3.9" -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$wheel" "$site"
rm -rf "$home"/root/usr/share/{doc,man,lintian}
ln -sfn "$home/root/usr/bin/python3.9" "$home/bin/python3.9"

step "4/4 self test"
"$home/bin/python3.9" - > "$work/selftest.log" 2>&1 <<'PY' || { cat "$work/selftest.log" >&2; die "the provisioned Python 3.9 failed its self test"; }
import ctypes, ssl, sys, venv, hashlib, lzma, zlib, distutils.util
import pip
assert sys.version_info[:2] == (3, 9), sys.version
print(sys.version.split()[0], "pip", pip.__version__, ssl.OPENSSL_VERSION)
PY
chmod -R u+w "$work" 2>/dev/null || true
rm -rf "$work"
"$home/bin/python3.9" -c 'import sys, pip; print("python", sys.version.split()[0], "pip", pip.__version__)' > "$home/.installed"
step "ready: $(cat "$home/.installed") in $home ($(du -sh "$home" | cut -f1))"
