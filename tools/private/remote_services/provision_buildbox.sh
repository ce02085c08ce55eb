#!/usr/bin/env bash
# provision_buildbox.sh [HOME_DIR]
#
# Puts the buildbox worker tools (buildbox-worker: a Bots-API worker for
# BuildGrid; buildbox-run-hosttools: runs each action on this host;
# buildbox-casd: the worker's local CAS) into HOME_DIR/buildbox. Only Debian
# sid packages buildbox, and it is built against a newer glibc/libstdc++ than
# a stable host has, so it is relocated the way tools/private/provision_bazel.sh
# relocates Bazel: unpacked with the sid libraries it needs, its binaries
# patchelf'ed onto the private ld.so and RPATH. Nothing sets LD_LIBRARY_PATH,
# so the commands the runner starts (gcc, python3) keep the system libc.
# Idempotent. Env: SK_DEBIAN_SUITE (default sid).
set -euo pipefail
here=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
rs_tag=remote_services/buildbox
# shellcheck source=../debian.sh
. "$here/../debian.sh"

home=${1:-$(rs_home)}
suite=${SK_DEBIAN_SUITE:-sid}
dest=$home/buildbox
tools=(buildbox-worker buildbox-run-hosttools buildbox-casd)
mkdir -p "$dest"
exec 9>"$dest/.lock"
flock 9
installed_ok() {
  [ -f "$dest/.installed" ] || return 1
  local t
  for t in "${tools[@]}"; do [ -x "$dest/bin/$t" ] || return 1; done
}
if installed_ok; then exit 0; fi

need_tools apt-get apt-cache dpkg-deb flock
[ "$(uname -m)" = x86_64 ] || die "relocating buildbox is only implemented for x86_64 hosts"
work=$dest/.work
rm -rf "$work" "$dest/root" "$dest/bin"
mkdir -p "$work" "$dest/root" "$dest/bin"
apt_view "$work" "$suite" bookworm

step "resolving buildbox and the libraries it needs in '$suite'"
closure buildbox > "$work/closure.txt" || true
bb=$(grep '^buildbox=' "$work/closure.txt" || true)
[ -n "$bb" ] || { cat "$work/resolve.err" >&2; die "buildbox is not in '$suite' on $apt_mirror_used"; }
# Only buildbox and shared libraries: the closure's programs (mount, fuse3,
# bubblewrap) are for runners this project does not use.
pkgs=$(grep -E '^(buildbox|lib[^=]*)=' "$work/closure.txt" | grep -v '^libc-gconv' | tr '\n' ' ')
step "downloading $(echo $pkgs | wc -w) packages + patchelf"
# shellcheck disable=SC2086
download_debs "$work/debs" $pkgs patchelf/bookworm
for p in $pkgs; do
  deb=$(ls "$work/debs/${p%%=*}"_*.deb 2>/dev/null | head -1)
  [ -n "$deb" ] || die "apt did not download ${p%%=*}"
  dpkg-deb -x "$deb" "$dest/root"
done
mkdir -p "$work/patchelf"
dpkg-deb -x "$(ls "$work"/debs/patchelf_*.deb | head -1)" "$work/patchelf"
patchelf=$work/patchelf/usr/bin/patchelf

step "pointing ${tools[*]} at the private glibc (patchelf)"
libdir=$dest/root/usr/lib/x86_64-linux-gnu
ldso=$libdir/ld-linux-x86-64.so.2
[ -e "$ldso" ] || die "the unpacked libc6 has no $ldso"
for t in "${tools[@]}"; do
  src=$dest/root/usr/bin/$t
  [ -x "$src" ] || die "$bb has no usr/bin/$t"
  "$patchelf" --set-interpreter "$ldso" --force-rpath --set-rpath "$libdir" "$src"
  ln -sfn "$src" "$dest/bin/$t"
  if ! "$dest/bin/$t" --help > "$work/$t.help" 2>&1; then
    # Some of them exit non-zero on --help; what matters is that the dynamic loader got past main().
    if grep -q -E 'error while loading shared libraries|not found \(required by|version .* not found' "$work/$t.help"; then
      cat "$work/$t.help" >&2
      die "the relocated $t does not start (loader error above)"
    fi
  fi
done
rm -rf "$dest/root/usr/share/doc" "$dest/root/usr/share/man" "$work"
echo "$bb" > "$dest/.installed"
step "ready: $bb in $dest ($(du -sh "$dest" | cut -f1))"
