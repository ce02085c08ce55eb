# Sourced (not run) by tools/private/provision_bazel.sh and the
# remote_services/provision_*.sh scripts: a private apt view of the mirror
# apt is configured with (no host is named here); packages are downloaded and
# unpacked with dpkg-deb into a per-user prefix, never installed into the system.
# Env: SK_DEBIAN_MIRROR overrides the mirror read from apt's sources.

rs_tag=${rs_tag:-remote_services}
step() { printf '[%s] %s\n' "$rs_tag" "$*"; }
die() { printf '[%s] ERROR: %s\n' "$rs_tag" "$*" >&2; exit 1; }

rs_home() {
  printf '%s' "${SK_REMOTE_SERVICES_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/rules_superkernel/remote_services}"
}

need_tools() {
  local t
  for t in "$@"; do
    command -v "$t" >/dev/null || die "'$t' is required (Debian/Ubuntu host expected)"
  done
}

apt_mirror() {
  local m=${SK_DEBIAN_MIRROR:-}
  if [ -z "$m" ]; then
    m=$(sed -n 's/^[[:space:]]*URIs:[[:space:]]*//p' /etc/apt/sources.list.d/*.sources 2>/dev/null \
        | tr ' ' '\n' | grep -v -i security | head -1 || true)
  fi
  if [ -z "$m" ]; then
    m=$(grep -h -E '^[[:space:]]*deb[[:space:]]' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null \
        | grep -v -i security | grep -o -E '(https?|ftp|file)://[^ ]+' | head -1 || true)
  fi
  printf '%s' "$m"
}

# apt_view WORKDIR SUITE...: sets the array apt_opts to a private apt that
# sees only SUITE... of apt's mirror, with an empty dpkg status (so every
# dependency is resolved as if on an empty system), and reads its index.
apt_view() {
  local work=$1; shift
  local keyring=/usr/share/keyrings/debian-archive-keyring.gpg mirror suite
  [ -f "$keyring" ] || die "Debian archive keyring $keyring missing (package debian-archive-keyring)"
  mirror=$(apt_mirror)
  [ -n "$mirror" ] || die "no Debian mirror in apt's sources (/etc/apt/sources.list*); set SK_DEBIAN_MIRROR"
  mkdir -p "$work/apt/lists/partial" "$work/apt/cache/archives/partial"
  : > "$work/apt/sources.list"
  for suite in "$@"; do
    printf 'deb [signed-by=%s] %s %s main\n' "$keyring" "$mirror" "$suite" >> "$work/apt/sources.list"
  done
  : > "$work/apt/status"
  apt_opts=(-q -o "Dir::Etc::SourceList=$work/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
    -o "Dir::State::Lists=$work/apt/lists" -o "Dir::State::status=$work/apt/status"
    -o "Dir::Cache=$work/apt/cache" -o Debug::NoLocking=1 -o "APT::Sandbox::User=$(id -un)"
    -o Acquire::Languages=none -o "APT::Default-Release=$1")
  step "reading the package index of '$*' from apt's mirror ($mirror)"
  apt-get "${apt_opts[@]}" update > "$work/update.log" 2>&1 \
    || { cat "$work/update.log" >&2; die "could not fetch the Debian package index of '$*' from $mirror"; }
  apt_mirror_used=$mirror
}

# closure PKG...: name=version of every package an install on an empty
# system would take.
closure() {
  apt-get "${apt_opts[@]}" -s install --no-install-recommends "$@" 2>"$work/resolve.err" \
    | awk '/^Inst /{v=$3; gsub(/[()]/, "", v); print $2 "=" v}'
}

# download_debs DIR PKG...: fails naming the packages that could not be fetched.
download_debs() {
  local dir=$1; shift
  mkdir -p "$dir"
  ( cd "$dir" && apt-get "${apt_opts[@]}" download "$@" ) > "$dir/../download.log" 2>&1 \
    || { tail -20 "$dir/../download.log" >&2; die "could not download from ${apt_mirror_used}: $*"; }
}
