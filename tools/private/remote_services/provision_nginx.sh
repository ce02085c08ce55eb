#!/usr/bin/env bash
# provision_nginx.sh [HOME_DIR]
#
# Puts nginx (with its built-in WebDAV PUT support, which makes it a Bazel
# HTTP remote cache) into HOME_DIR/nginx, from this host's own Debian release
# on apt's configured mirror: it links against the system's libraries, so no
# relocation is needed. Idempotent; no root needed; nothing is installed into
# the system. Env: SK_NGINX_SUITE (default: this host's codename).
set -euo pipefail
here=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
rs_tag=remote_services/nginx
# shellcheck source=../debian.sh
. "$here/../debian.sh"

home=${1:-$(rs_home)}
dest=$home/nginx
mkdir -p "$dest"
exec 9>"$dest/.lock"
flock 9
if [ -f "$dest/.installed" ] && "$dest/root/usr/sbin/nginx" -v >/dev/null 2>&1; then exit 0; fi

need_tools apt-get dpkg-deb flock
suite=${SK_NGINX_SUITE:-$(. /etc/os-release 2>/dev/null && printf '%s' "${VERSION_CODENAME:-}")}
[ -n "$suite" ] || die "cannot tell this host's Debian release from /etc/os-release; set SK_NGINX_SUITE"

work=$dest/.work
rm -rf "$work" "$dest/root"
mkdir -p "$work"
apt_view "$work" "$suite"
step "downloading nginx from '$suite'"
download_debs "$work/debs" nginx
deb=$(ls "$work"/debs/nginx_*.deb 2>/dev/null | head -1)
[ -n "$deb" ] || die "apt downloaded no nginx_*.deb from '$suite'"
dpkg-deb -x "$deb" "$dest/root"
nginx=$dest/root/usr/sbin/nginx
[ -x "$nginx" ] || die "$deb has no usr/sbin/nginx"
if ! "$nginx" -V > "$work/version.log" 2>&1; then
  cat "$work/version.log" >&2
  ldd "$nginx" >&2 || true
  die "the unpacked nginx does not start on this host (missing system libraries? see above)"
fi
grep -q -- '--with-http_dav_module' "$work/version.log" \
  || die "this nginx build has no WebDAV module (--with-http_dav_module), so it cannot accept Bazel's PUTs"
version=$(sed -n 's/^nginx version: //p' "$work/version.log")
rm -rf "$work"
echo "$version ($(basename "$deb"))" > "$dest/.installed"
step "ready: $version in $dest"
