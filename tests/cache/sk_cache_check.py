#!/usr/bin/env python3
"""Proves remote caching, determinism, cache resilience and remote execution of the SK build.

Everything runs the way a user lives it: fresh `git clone`s of the committed
HEAD at different paths, a separate Bazel output root per build, real servers
on 127.0.0.1 (nginx WebDAV for HTTP caching; BuildGrid + buildbox for remote
execution) started and stopped by pid, and Bazel's own execution log as the
witness of what ran where. Uncommitted changes of the checkout are NOT tested.

Checks (`all` runs them in this order, sharing builds):
  cache        clone 1 builds with an empty remote cache (every project action
               runs locally and is uploaded); clone 2, another path and output
               root, must get every project action as a remote cache hit. The
               share of hits is the figure; then every SK artefact's sha256
               must match between the clones.
  determinism  the same targets built with no cache, in another clone and
               output root, another PYTHONHASHSEED/TZ/locale and spawn strategy,
               must give byte-identical artefacts; and no artefact may hold an
               absolute path, user/host name, pid or timestamp.
  resilience   an unreachable cache port, and a cache server killed in the
               middle of a build: the build must still succeed, with the same
               artefacts, and Bazel must not warn once per action.
  remote_exec  the build executed through the Remote Execution API on a
               loopback BuildGrid + buildbox-worker farm: every project action
               runs remotely and the artefacts equal a local build's.

Exit status 0 when every selected check passes. One summary line per check,
then `N passed, N failed`.
"""

import argparse
import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(REPO, "tests", "determinism"))
sys.path.insert(0, os.path.join(REPO, "tools", "private", "remote_services"))

import artefact_scan  # noqa: E402
import exec_log  # noqa: E402
import services  # noqa: E402

DEFAULT_TARGETS = ["//examples/..."]
# Every action the rules register (rules/private/actions.bzl); each must run in DEFAULT_TARGETS' build.
DEFAULT_MNEMONICS = ["SkCompile", "SkWrap", "SkSubOp", "SkGen", "SkCompileEntry", "SkLink", "SkReport",
                     "SkTiling", "SkLaunch", "SkModel", "SkTwinLib"]
CHECKS = ["cache", "determinism", "resilience", "remote_exec"]
RUNNING = {"bazel": None}  # the bazel client in the foreground, to interrupt on SIGTERM


def log(msg):
    print("[sk-cache] %s" % msg, file=sys.stderr, flush=True)


class CheckFailed(Exception):
    pass


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


class Bazel:
    """One checkout + one --output_user_root = one Bazel server, shut down by `shutdown`."""

    def __init__(self, session, checkout, name):
        self.session = session
        self.checkout = checkout
        self.name = name
        self.root = os.path.join(session.workdir, "roots", name)
        self.started = False
        self._execroot = None

    def _cmd(self, args):
        return [os.path.join(self.checkout, "tools", "bazel"), "--nohome_rc", "--output_user_root=" + self.root] + args

    def run(self, args, label, env=None, check=True, on_start=None):
        """Runs bazel ARGS; returns (rc, combined output). Output also goes to logs/<name>.<label>.log."""
        self.started = True
        path = os.path.join(self.session.logdir, "%s.%s.log" % (self.name, label))
        full_env = dict(os.environ)
        full_env.update(env or {})
        with open(path, "wb") as out:
            proc = subprocess.Popen(self._cmd(args), cwd=self.checkout, stdout=out, stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL, env=full_env)
            RUNNING["bazel"] = proc
            if on_start:
                on_start(proc)
            rc = proc.wait()
            RUNNING["bazel"] = None
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        if check and rc != 0:
            tail = "\n".join(text.splitlines()[-25:])
            raise CheckFailed("bazel %s in %s exited %d (log %s):\n%s" % (label, self.checkout, rc, path, tail))
        return rc, text

    def execroot(self):
        if self._execroot is None:
            _, text = self.run(["info", "execution_root"], "info")
            self._execroot = text.strip().splitlines()[-1]
        return self._execroot

    def shutdown(self):
        if self.started:
            subprocess.run(self._cmd(["shutdown"]), cwd=self.checkout, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
            self.started = False


class Build:
    """The result of one `bazel build`: its spawns and the listed mnemonics' artefacts."""

    def __init__(self, name, bazel, spawns, text, mnemonics):
        self.name = name
        self.bazel = bazel
        self.spawns = spawns
        self.text = text
        self.mnemonics = mnemonics
        self.recorded = exec_log.output_digests(spawns, mnemonics)
        self._manifest = None

    def artefact_files(self):
        root = self.bazel.execroot()
        return {p: os.path.join(root, p) for p in self.recorded}

    def manifest(self):
        """{path: sha256 of the file on disk}; fails if Bazel left an artefact off disk."""
        if self._manifest is not None:
            return self._manifest
        out = {}
        for p, f in self.artefact_files().items():
            if not os.path.isfile(f):
                raise CheckFailed("%s: artefact %s is not on disk at %s" % (self.name, p, f))
            out[p] = sha256_file(f)
        self._manifest = out
        return out


class Session:
    def __init__(self, args):
        self.args = args
        self.repo = os.path.realpath(args.repo)
        self.targets = args.targets
        self.mnemonics = args.mnemonics
        self.workdir = os.path.realpath(args.workdir or tempfile.mkdtemp(prefix="sk-cache-check-"))
        os.makedirs(self.workdir, exist_ok=True)
        self.logdir = os.path.join(self.workdir, "logs")
        os.makedirs(self.logdir, exist_ok=True)
        self.bazels = []
        self.service_dirs = []
        self.clones = {}
        self.builds = {}
        self.commit = None

    # --- resources -------------------------------------------------------
    def clone(self, key):
        """Clones the committed HEAD; the two clones differ in depth and in their directory's name."""
        if key in self.clones:
            return self.clones[key]
        if self.commit is None:
            self.commit = git(self.repo, "rev-parse", "HEAD")
            if git(self.repo, "status", "--porcelain", "--untracked-files=no"):
                log("note: %s has uncommitted changes; this tests commit %s only" % (self.repo, self.commit[:12]))
        rel = {"one": "clone-one/rules_superkernel", "two": "second/checkout/sk-clone-two"}[key]
        dest = os.path.join(self.workdir, rel)
        log("cloning %s (%s) into %s" % (self.repo, self.commit[:12], dest))
        subprocess.run(["git", "clone", "-q", "--no-checkout", self.repo, dest], check=True)
        subprocess.run(["git", "-C", dest, "checkout", "-q", "--detach", self.commit], check=True)
        self.clones[key] = dest
        return dest

    def bazel(self, clone_key, name):
        b = Bazel(self, self.clone(clone_key), name)
        self.bazels.append(b)
        return b

    def service_dir(self, name):
        d = os.path.join(self.workdir, "services", name)
        self.service_dirs.append(d)
        return d

    def build(self, bazel, name, flags=(), env=None, check=True, on_start=None):
        log_path = os.path.join(self.workdir, "logs", "%s.exec.json" % name)
        t0 = time.monotonic()
        # .d files stay in memory when fetched remotely unless asked; the
        # artefact comparison wants every output on disk.
        args = (["build", "--color=no", "--curses=no", "--disk_cache=", "--execution_log_json_file=" + log_path,
                 "--noexperimental_inmemory_dotd_files"]
                + list(flags) + ["--"] + list(self.targets))
        rc, text = bazel.run(args, name, env=env, check=check, on_start=on_start)
        log("%s: bazel build finished in %.0f s (exit %d)" % (name, time.monotonic() - t0, rc))
        if rc != 0:
            return None
        build = Build(name, bazel, exec_log.read_spawns(log_path), text, self.mnemonics)
        self.builds[name] = build
        return build

    def require_mnemonics(self, build):
        missing = exec_log.missing_mnemonics(build.spawns, self.mnemonics)
        if missing:
            seen = sorted({s.mnemonic for s in build.spawns})
            raise CheckFailed("%s: no action of mnemonic(s) %s ran for %s, so checking them would prove nothing "
                              "(mnemonics that did run: %s)" % (build.name, ", ".join(missing),
                                                               " ".join(self.targets), ", ".join(seen)))

    def reference(self):
        """A local build of clone one with nothing cached; `cache` makes it with its cache attached."""
        if "reference" not in self.builds:
            b = self.bazel("one", "ref")
            build = self.build(b, "reference", flags=seed_flags(11), env=seed_env(11, "UTC", "C.UTF-8"))
            self.require_mnemonics(build)
            build.manifest()
            b.shutdown()
        return self.builds["reference"]

    def cleanup(self, keep_logs=False):
        for d in reversed(self.service_dirs):
            try:
                services.stop(d)
            except Exception as e:  # cleanup must go on to the Bazel servers
                log("warning: stopping services in %s: %s" % (d, e))
        for b in self.bazels:
            b.shutdown()
        if not self.args.keep:
            if keep_logs:
                kept = tempfile.mkdtemp(prefix="sk-cache-check-logs-")
                shutil.move(self.logdir, kept)
                log("build and service logs kept in %s" % kept)
                for d in self.service_dirs:
                    for name in os.listdir(d) if os.path.isdir(d) else ():
                        if name.endswith(".log"):
                            shutil.copy(os.path.join(d, name), os.path.join(kept, os.path.basename(d) + "." + name))
            for root, dirs, _ in os.walk(self.workdir):
                for d in dirs:
                    try:
                        os.chmod(os.path.join(root, d), 0o755)
                    except OSError:
                        pass
            shutil.rmtree(self.workdir, ignore_errors=True)
        else:
            log("kept %s (logs in %s)" % (self.workdir, self.logdir))


def git(repo, *args):
    return subprocess.run(["git", "-C", repo] + list(args), check=True, capture_output=True, text=True).stdout.strip()


def seed_flags(seed):
    # Reaches actions that use the default shell env; actions that pin their
    # own env keep it (and without a pin Python picks a random seed anyway).
    return ["--action_env=PYTHONHASHSEED=%d" % seed]


def seed_env(seed, tz, lang):
    return {"PYTHONHASHSEED": str(seed), "TZ": tz, "LANG": lang, "LC_ALL": lang}


def compare_manifests(name_a, a, name_b, b):
    """Raises CheckFailed listing the artefacts whose bytes differ or that only one build has."""
    only_a = sorted(set(a) - set(b))
    only_b = sorted(set(b) - set(a))
    differ = sorted(p for p in set(a) & set(b) if a[p] != b[p])
    if only_a or only_b or differ:
        lines = []
        lines += ["  differs: %s (%s vs %s)" % (p, a[p][:16], b[p][:16]) for p in differ[:20]]
        lines += ["  only in %s: %s" % (name_a, p) for p in only_a[:10]]
        lines += ["  only in %s: %s" % (name_b, p) for p in only_b[:10]]
        raise CheckFailed("%d of %d artefacts differ between %s and %s:\n%s"
                          % (len(differ) + len(only_a) + len(only_b), len(set(a) | set(b)), name_a, name_b,
                             "\n".join(lines)))
    return len(a)


def remote_complaints(text):
    """The WARNING/ERROR lines in which Bazel said the remote cache or executor is unusable."""
    return [l for l in text.splitlines()
            if l.startswith(("WARNING:", "ERROR:")) and "remote" in l.lower()]


# --- checks ---------------------------------------------------------------

def check_cache(s):
    if s.args.cache_server == "buildgrid":
        url = services.start_buildgrid(s.service_dir("cache-buildgrid"))
    else:
        url = services.start_nginx(s.service_dir("cache-nginx"))
    flags = seed_flags(11) + ["--config=ci", "--remote_cache=" + url, "--remote_download_all"]
    one = s.bazel("one", "cache-1")
    first = s.build(one, "reference", flags=flags, env=seed_env(11, "UTC", "C.UTF-8"))
    s.require_mnemonics(first)
    pre_hits = [sp for sp in first.spawns if sp.mnemonic in s.mnemonics and sp.cache_hit]
    if pre_hits:
        raise CheckFailed("clone one got %d cache hits from a fresh cache server: the cache was not empty"
                          % len(pre_hits))
    ref = first.manifest()
    one.shutdown()
    two = s.bazel("two", "cache-2")
    second = s.build(two, "cache-clone-two", flags=flags, env=seed_env(11, "UTC", "C.UTF-8"))
    verdict = exec_log.CacheVerdict(second.spawns, s.mnemonics)
    if verdict.total == 0:
        raise CheckFailed("clone two ran no action of %s at all" % ", ".join(s.mnemonics))
    # nginx's access log is a second witness that the hits came over the wire.
    served = count_access(s.service_dirs[-1], "GET", "/ac/", "200") if url.startswith("http") else None
    figure = "%d/%d project actions (%.1f%%) served from the remote cache [%s]" % (
        verdict.hits, verdict.total, 100.0 * verdict.share, verdict.table())
    log("cache figure: %s (%s)" % (figure, url))
    if served is not None:
        log("nginx answered %d action-cache GETs with 200" % served)
    if verdict.offenders:
        raise CheckFailed("%s; not from the cache:\n%s" % (figure, "\n".join(
            "  " + verdict.describe_offender(o) for o in verdict.offenders[:20])))
    if served is not None and served < verdict.hits:
        raise CheckFailed("%s, but nginx served only %d action-cache hits: the hits did not come from the server"
                          % (figure, served))
    n = compare_manifests("clone one", ref, "clone two", second.manifest())
    recorded = compare_manifests("clone one (logged digests)", first.recorded, "clone two (logged digests)",
                                 second.recorded)
    two.shutdown()
    services.stop(s.service_dirs[-1])
    return "%s; %d SK artefacts byte-identical (sha256) across clones, %d logged digests equal" % (figure, n, recorded)


def count_access(state_dir, method, prefix, status):
    n = 0
    try:
        with open(os.path.join(state_dir, "nginx.access.log"), encoding="utf-8") as f:
            for line in f:
                parts = line.split()
                if len(parts) >= 3 and parts[0] == method and parts[1].startswith(prefix) and parts[2] == status:
                    n += 1
    except FileNotFoundError:
        pass
    return n


# The sk actions of a default build run in sk's persistent workers (sk/cli/worker.py).
WORKER_RUNNER = "worker"


def check_determinism(s):
    ref = s.reference() if "reference" not in s.builds else s.builds["reference"]
    ref_manifest = ref.manifest()
    sk_runners = exec_log.runner_counts(ref.spawns, s.mnemonics)
    not_worker = {m: r for m, r in sk_runners.items() if set(r) - {WORKER_RUNNER}}
    if not_worker or not sk_runners:
        raise CheckFailed("the reference build did not run every sk action in a persistent worker: %s"
                          % (not_worker or "no sk actions"))
    workers = sum(sum(r.values()) for r in sk_runners.values())
    other = s.bazel("two", "determinism")
    build = s.build(other, "determinism", flags=seed_flags(12345) + ["--noremote_accept_cached", "--spawn_strategy=local"],
                    env=seed_env(12345, "Asia/Kolkata", "C"))
    s.require_mnemonics(build)
    hits = [sp for sp in build.spawns if sp.cache_hit]
    if hits:
        raise CheckFailed("the determinism build was served %d actions from a cache" % len(hits))
    problems = []
    try:
        n = compare_manifests("build 1 (%s)" % ref.bazel.checkout, ref_manifest, "build 2 (%s)" % other.checkout,
                              build.manifest())
    except CheckFailed as e:
        problems.append(str(e))
    dirs = [s.workdir, os.path.realpath(tempfile.gettempdir()), os.path.expanduser("~"), s.repo, os.getcwd()]
    dirs += [b.checkout for b in (ref.bazel, other)] + [b.root for b in (ref.bazel, other)]
    dirs += [b.execroot() for b in (ref.bazel, other)]
    import getpass
    needles = artefact_scan.literal_needles(dirs, user=getpass.getuser(), host=socket.gethostname())
    findings = []
    for b in (ref, build):
        findings += artefact_scan.scan_files(b.artefact_files(), needles)
    if findings:
        problems.append("%d run-specific strings in SK artefacts:\n%s"
                        % (len(findings), artefact_scan.format_findings(findings)))
    other.shutdown()
    if problems:
        raise CheckFailed("\n".join(problems))
    return ("%d SK artefacts byte-identical across 2 checkouts, output roots, PYTHONHASHSEED 11/12345, TZ, locale, "
            "persistent-worker (%d sk actions) / local spawns; %d files scanned, no path/user/host/pid/time strings"
            % (n, workers, 2 * n))


def check_resilience(s):
    ref = (s.builds.get("reference") or s.reference()).manifest()
    b = s.bazel("two", "resilience")
    results = []

    # 1. A port with nothing listening.
    port = services.free_port()
    build = s.build(b, "resilience-unreachable", flags=seed_flags(11) + [
        "--config=ci", "--remote_cache=http://127.0.0.1:%d" % port], env=seed_env(11, "UTC", "C.UTF-8"))
    results.append(judge_fallback(s, build, ref, "unreachable cache port"))
    b.run(["clean"], "clean-1")

    # 2. A live nginx killed as soon as the build has made its first cache request.
    state = s.service_dir("resilience-nginx")
    url = services.start_nginx(state)
    access = os.path.join(state, "nginx.access.log")
    killed = {}

    def killer(proc):
        def watch():
            while proc.poll() is None:
                if os.path.exists(access) and os.path.getsize(access) > 0:
                    services.stop_one(state, "nginx")
                    killed["at"] = count_lines(access)
                    return
                time.sleep(0.005)
        threading.Thread(target=watch, daemon=True).start()

    build = s.build(b, "resilience-midrun", flags=seed_flags(11) + ["--config=ci", "--remote_cache=" + url],
                    env=seed_env(11, "UTC", "C.UTF-8"), on_start=killer)
    if "at" not in killed:
        raise CheckFailed("the cache server was never contacted during the build, so it could not be stopped mid-run")
    project = [sp for sp in build.spawns if sp.mnemonic in s.mnemonics]
    if killed["at"] >= len(project):
        raise CheckFailed("nginx had served %d requests for %d project actions before it was stopped: not mid-run"
                          % (killed["at"], len(project)))
    results.append(judge_fallback(s, build, ref, "cache killed after %d request(s)" % killed["at"]))
    b.run(["clean"], "clean-2")

    # 3. Remote execution requested, no executor there: --config=remote_exec
    #    has --remote_local_fallback.
    port = services.free_port()
    build = s.build(b, "resilience-no-executor", flags=seed_flags(11) + [
        "--config=remote_exec", "--remote_executor=grpc://127.0.0.1:%d" % port],
        env=seed_env(11, "UTC", "C.UTF-8"))
    results.append(judge_fallback(s, build, ref, "unreachable executor (--config=remote_exec)"))
    b.shutdown()
    return "; ".join(results)


def count_lines(path):
    with open(path, "rb") as f:
        return sum(1 for _ in f)


def judge_fallback(s, build, ref, what):
    if build is None:
        raise CheckFailed("%s: the build failed instead of falling back to local execution" % what)
    s.require_mnemonics(build)
    compare_manifests("reference", ref, what, build.manifest())
    warnings = remote_complaints(build.text)
    consulted = [sp for sp in build.spawns if sp.mnemonic in s.mnemonics]
    repeated = sorted({w for w in warnings if warnings.count(w) > 1})
    if repeated:
        raise CheckFailed("%s: Bazel repeated the same warning: %s" % (what, repeated[0]))
    if not warnings:
        raise CheckFailed("%s: Bazel did not warn that the cache is unusable" % what)
    if len(warnings) >= len(consulted):
        raise CheckFailed("%s: %d cache warnings for %d project actions: that is per action"
                          % (what, len(warnings), len(consulted)))
    return "%s: build OK, same artefacts, %d distinct warning line(s) for %d project actions" % (
        what, len(warnings), len(consulted))


def check_remote_exec(s):
    ref_build = s.builds.get("reference") or s.reference()
    ref = ref_build.manifest()
    url = services.start_farm(s.service_dir("farm"))
    b = s.bazel("two", "remote-exec")
    build = s.build(b, "remote-exec", flags=seed_flags(11) + [
        "--config=remote_exec", "--remote_executor=" + url, "--remote_download_all"],
        env=seed_env(11, "UTC", "C.UTF-8"))
    s.require_mnemonics(build)
    runners = exec_log.runner_counts(build.spawns, s.mnemonics)
    local = {m: r for m, r in runners.items() if set(r) - {exec_log.REMOTE_EXECUTION}}
    if local:
        raise CheckFailed("not every project action ran on the farm: %s" % json.dumps(local, sort_keys=True))
    n = compare_manifests("local build", ref, "remote execution", build.manifest())
    total = sum(sum(r.values()) for r in runners.values())
    b.shutdown()
    return "%d/%d project actions executed remotely on BuildGrid + buildbox-worker (%s); %d artefacts byte-identical to a local build" % (
        total, total, url, n)


RUNNERS = {"cache": check_cache, "determinism": check_determinism, "resilience": check_resilience,
           "remote_exec": check_remote_exec}


def main(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("checks", nargs="*", default=["all"], help="any of %s, or all (default)" % ", ".join(CHECKS))
    p.add_argument("--targets", default=",".join(DEFAULT_TARGETS), help="comma-separated target patterns")
    p.add_argument("--mnemonics", default=",".join(DEFAULT_MNEMONICS),
                   help="comma-separated mnemonics of the project's actions; each must run at least once")
    p.add_argument("--repo", default=REPO, help="git checkout whose HEAD is tested (default: this one)")
    p.add_argument("--cache-server", choices=["nginx", "buildgrid"], default="nginx",
                   help="remote cache of the `cache` check: nginx over HTTP (default) or BuildGrid over gRPC")
    p.add_argument("--workdir", help="scratch dir (default: a new temp dir, removed afterwards)")
    p.add_argument("--keep", action="store_true", help="keep the scratch dir (clones, output roots, logs)")
    args = p.parse_args(argv)
    args.targets = [t for t in args.targets.split(",") if t]
    args.mnemonics = [m for m in args.mnemonics.split(",") if m]
    checks = CHECKS if args.checks in (["all"], []) else args.checks
    bad = [c for c in checks if c not in CHECKS]
    if bad:
        p.error("unknown check %s; choose from %s or all" % (", ".join(bad), ", ".join(CHECKS)))
    # CI's timeout and Ctrl-C must still stop the servers and Bazel (finally below).
    def on_signal(signum, frame):
        proc = RUNNING["bazel"]
        if proc is not None and proc.poll() is None:
            proc.send_signal(signal.SIGINT)  # the client cancels its build, as on Ctrl-C
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
        sys.exit(128 + signum)

    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, on_signal)
    s = Session(args)
    log("targets %s; project mnemonics %s; scratch %s" % (" ".join(args.targets), ",".join(args.mnemonics), s.workdir))
    results = []
    t_all = time.monotonic()
    try:
        for c in checks:
            t0 = time.monotonic()
            try:
                summary = RUNNERS[c](s)
                results.append((c, True, summary, time.monotonic() - t0))
            except (CheckFailed, services.ServiceError, exec_log.ExecLogError, subprocess.CalledProcessError) as e:
                results.append((c, False, str(e), time.monotonic() - t0))
            except Exception:  # a bug in the harness: still report, clean up and run the other checks
                results.append((c, False, "internal error in the harness:\n" + traceback.format_exc(),
                                time.monotonic() - t0))
            log("%s %s" % ("PASS" if results[-1][1] else "FAIL", c))
    finally:
        s.cleanup(keep_logs=not all(r[1] for r in results) or len(results) < len(checks))
    for c, ok, text, dt in results:
        first, _, rest = text.partition("\n")
        print("%s %s (%.0f s): %s" % ("PASS" if ok else "FAIL", c, dt, first))
        if rest:
            print(rest)
    passed = sum(1 for r in results if r[1])
    print("total time %.0f s" % (time.monotonic() - t_all))
    print("%d passed, %d failed" % (passed, len(results) - passed))
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
