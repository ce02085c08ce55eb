#!/usr/bin/env python3
"""Starts and stops loopback REAPI/HTTP cache services for rules_superkernel's tests.

Services (each provisioned on first use by the provision_*.sh beside this file
into a per-user cache, see lib.sh):
  nginx      HTTP remote cache (WebDAV PUT)       -> --remote_cache=http://127.0.0.1:PORT
  buildgrid  gRPC remote cache (CAS + AC)          -> --remote_cache=grpc://127.0.0.1:PORT
  farm       BuildGrid execution + bots + CAS + AC, buildbox-casd and
             buildbox-worker running actions with buildbox-run-hosttools
                                                   -> --remote_executor=grpc://127.0.0.1:PORT

Every service listens on 127.0.0.1 on a free port, keeps its data and logs in
the state directory given, and is recorded in STATE/services.json with its
pids, so `stop` ends exactly the processes `start` made (process groups led by
those pids), nothing found by name.

CLI:  services.py start nginx|buildgrid|farm STATE_DIR   (prints the URL)
      services.py stop STATE_DIR
"""

import json
import os
import signal
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TAG = "[remote_services]"


class ServiceError(Exception):
    """A service could not be provisioned or started; the message says which and why."""


def services_home():
    home = os.environ.get("SK_REMOTE_SERVICES_HOME")
    if home:
        return home
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(cache, "rules_superkernel", "remote_services")


def progress(msg):
    print("%s %s" % (TAG, msg), file=sys.stderr, flush=True)


def provision(what):
    """Runs provision_<what>.sh (idempotent) and returns its install dir."""
    home = services_home()
    script = os.path.join(HERE, "provision_%s.sh" % what)
    proc = subprocess.run(["bash", script, home], stdout=sys.stderr, stderr=sys.stderr)
    if proc.returncode != 0:
        raise ServiceError("provisioning %s failed (%s exited %d; its error is above)" % (what, script, proc.returncode))
    return os.path.join(home, what)


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def port_open(port):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.settimeout(0.2)
        return s.connect_ex(("127.0.0.1", port)) == 0


def tail(path, n=30):
    try:
        with open(path, "rb") as f:
            lines = f.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return "(no log at %s)" % path
    return "\n".join(lines[-n:])


class State:
    """STATE_DIR/services.json: what was started, with pids, for `stop`."""

    def __init__(self, state_dir):
        self.dir = os.path.abspath(state_dir)
        os.makedirs(self.dir, exist_ok=True)
        self.path = os.path.join(self.dir, "services.json")

    def load(self):
        try:
            with open(self.path, encoding="utf-8") as f:
                return json.load(f)
        except FileNotFoundError:
            return {"processes": [], "urls": {}}

    def save(self, data):
        tmp = self.path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=2, sort_keys=True)
        os.replace(tmp, self.path)

    def add_process(self, name, pid):
        data = self.load()
        data["processes"].append({"name": name, "pid": pid})
        self.save(data)

    def set_url(self, key, url):
        data = self.load()
        data["urls"][key] = url
        self.save(data)


def spawn(state, name, argv, log, env=None, cwd=None):
    """Starts argv in its own session (so its children share the pgid = pid) and records it."""
    out = open(log, "ab")
    proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                            env=env, cwd=cwd, start_new_session=True)
    out.close()
    state.add_process(name, proc.pid)
    return proc


def wait_until(what, ready, proc, log, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise ServiceError("%s exited with status %s while starting; its log (%s) ends:\n%s"
                               % (what, proc.returncode, log, tail(log)))
        if ready():
            return
        time.sleep(0.1)
    raise ServiceError("%s did not become ready within %d s; its log (%s) ends:\n%s" % (what, timeout, log, tail(log)))


NGINX_CONF = """\
{user}worker_processes 1;
daemon off;
pid {state}/nginx.pid;
error_log {state}/nginx.error.log warn;
events {{ worker_connections 512; }}
http {{
    log_format sk '$request_method $uri $status $body_bytes_sent';
    access_log {state}/nginx.access.log sk;
    client_max_body_size 0;
    client_body_temp_path {state}/nginx.tmp/body;
    proxy_temp_path {state}/nginx.tmp/proxy;
    fastcgi_temp_path {state}/nginx.tmp/fastcgi;
    uwsgi_temp_path {state}/nginx.tmp/uwsgi;
    scgi_temp_path {state}/nginx.tmp/scgi;
    server {{
        listen 127.0.0.1:{port};
        location / {{
            root {data};
            dav_methods PUT;
            create_full_put_path on;
            dav_access user:rw group:r all:r;
        }}
    }}
}}
"""


def start_nginx(state_dir):
    """HTTP cache: GET/PUT of /ac/<sha256> and /cas/<sha256> under STATE/nginx.data."""
    state = State(state_dir)
    nginx = os.path.join(provision("nginx"), "root", "usr", "sbin", "nginx")
    data = os.path.join(state.dir, "nginx.data")
    os.makedirs(os.path.join(state.dir, "nginx.tmp"), exist_ok=True)
    os.makedirs(data, exist_ok=True)
    # Run as root, nginx would hand its workers to `nobody`, who cannot write
    # the cache dir; keep them as the invoking user instead.
    user = ""
    if os.geteuid() == 0:
        import grp
        import pwd
        user = "user %s %s;\n" % (pwd.getpwuid(os.geteuid()).pw_name, grp.getgrgid(os.getegid()).gr_name)
    log = os.path.join(state.dir, "nginx.log")
    for _ in range(3):  # a free port can be taken between probe and bind
        port = free_port()
        conf = os.path.join(state.dir, "nginx.conf")
        with open(conf, "w", encoding="utf-8") as f:
            f.write(NGINX_CONF.format(user=user, state=state.dir, port=port, data=data))
        proc = spawn(state, "nginx", [nginx, "-p", state.dir + "/", "-e", os.path.join(state.dir, "nginx.error.log"),
                                      "-c", conf], log)
        try:
            wait_until("nginx", lambda: port_open(port), proc, os.path.join(state.dir, "nginx.error.log"), 20)
        except ServiceError:
            if "Address already in use" in tail(os.path.join(state.dir, "nginx.error.log")):
                continue
            raise
        url = "http://127.0.0.1:%d" % port
        state.set_url("nginx", url)
        progress("nginx cache on %s (pid %d, data %s)" % (url, proc.pid, data))
        return url
    raise ServiceError("nginx could not bind a free port on 127.0.0.1 in 3 tries")


def _bgd_config(state_dir, port, execution):
    db = os.path.join(state_dir, "bgd.sqlite")
    lines = [
        # Every open Execute/WaitExecution stream, bot long-poll and ByteStream
        # holds one of these threads; the default (5 per core) is exhausted by
        # a single Bazel with --jobs=32 ("Concurrent RPC limit exceeded!").
        "thread-pool-size: 256",
        "server:",
        "  - !channel",
        '    address: "127.0.0.1:%d"' % port,
        "    insecure-mode: true",
        "authorization:",
        "  method: none",
        "storages:",
        "  - !disk-storage &cas",
        "    path: %s" % os.path.join(state_dir, "bgd.cas"),
        "caches:",
        "  - !lru-action-cache &ac",
        "    storage: *cas",
        "    max-cached-refs: 100000",
        "    allow-updates: true",
        "    cache-failed-actions: false",
    ]
    if execution:
        lines += [
            "connections:",
            "  - !sql-connection &sql",
            "    connection-string: sqlite:///%s" % db,
            "schedulers:",
            "  - !sql-scheduler &scheduler",
            "    sql: *sql",
            "    storage: *cas",
            "    action-cache: *ac",
        ]
    lines += [
        "instances:",
        "  - name: ''",
        "    services:",
        "      - !action-cache",
        "        cache: *ac",
        "      - !cas",
        "        storage: *cas",
        "      - !bytestream",
        "        storage: *cas",
    ]
    if execution:
        lines += ["      - !execution", "        scheduler: *scheduler"]
    return "\n".join(lines) + "\n", db


# BuildGrid only creates its scheduler tables itself for a throw-away database;
# for a named SQLite file they are created from its own models.
CREATE_TABLES = """
import sys
from sqlalchemy import create_engine
from buildgrid.server.sql.models import Base
Base.metadata.create_all(create_engine("sqlite:///" + sys.argv[1]))
"""


def _start_bgd(state, execution):
    venv = os.path.join(provision("buildgrid"), "venv", "bin")
    os.makedirs(os.path.join(state.dir, "bgd.cas"), exist_ok=True)
    log = os.path.join(state.dir, "bgd.log")
    env = dict(os.environ, TMPDIR=state.dir)
    for _ in range(3):
        port = free_port()
        text, db = _bgd_config(state.dir, port, execution)
        conf = os.path.join(state.dir, "bgd.yml")
        with open(conf, "w", encoding="utf-8") as f:
            f.write(text)
        if execution and not os.path.exists(db):
            subprocess.run([os.path.join(venv, "python"), "-c", CREATE_TABLES, db], check=True)
        proc = spawn(state, "bgd", [os.path.join(venv, "bgd"), "server", "start", conf], log, env=env)
        try:
            wait_until("BuildGrid (bgd)", lambda: port_open(port), proc, log, 60)
        except ServiceError:
            if "address already in use" in tail(log).lower():
                continue
            raise
        return port, proc
    raise ServiceError("BuildGrid could not bind a free port on 127.0.0.1 in 3 tries")


def start_buildgrid(state_dir):
    """gRPC cache: BuildGrid with CAS, ByteStream and action cache only."""
    state = State(state_dir)
    port, proc = _start_bgd(state, execution=False)
    url = "grpc://127.0.0.1:%d" % port
    state.set_url("buildgrid", url)
    progress("BuildGrid cache on %s (pid %d)" % (url, proc.pid))
    return url


def start_farm(state_dir, jobs=2):
    """Remote execution on loopback: BuildGrid + buildbox-casd + buildbox-worker (hosttools runner)."""
    state = State(state_dir)
    buildbox = os.path.join(provision("buildbox"), "bin")
    port, bgd = _start_bgd(state, execution=True)
    remote = "grpc://127.0.0.1:%d" % port
    sock = os.path.join(state.dir, "casd.sock")
    casd_log = os.path.join(state.dir, "casd.log")
    casd = spawn(state, "buildbox-casd", [
        os.path.join(buildbox, "buildbox-casd"), "--cas-remote=" + remote, "--bind=unix:" + sock,
        "--log-level=warning", os.path.join(state.dir, "casd.cache")], casd_log)
    wait_until("buildbox-casd", lambda: os.path.exists(sock), casd, casd_log, 30)
    worker_log = os.path.join(state.dir, "worker.log")
    runner = os.path.realpath(os.path.join(buildbox, "buildbox-run-hosttools"))
    worker = spawn(state, "buildbox-worker", [
        os.path.join(buildbox, "buildbox-worker"), "--bots-remote=" + remote, "--cas-remote=unix:" + sock,
        "--buildbox-run=" + runner, "--concurrent-jobs=%d" % jobs, "--max-wait-time=5",
        "sk-loopback-worker"], worker_log)

    def worker_started():
        return "Starting buildbox-worker" in tail(worker_log, 200)

    wait_until("buildbox-worker", worker_started, worker, worker_log, 30)
    state.set_url("farm", remote)
    progress("remote execution farm on %s (bgd pid %d, casd pid %d, worker pid %d)"
             % (remote, bgd.pid, casd.pid, worker.pid))
    return remote


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie of ours counts as gone once reaped.
    try:
        done, _ = os.waitpid(pid, os.WNOHANG)
        return done == 0
    except ChildProcessError:
        return True


def stop(state_dir, grace=5.0):
    """Stops what STATE_DIR/services.json lists, newest first: SIGTERM to each group, SIGKILL after `grace` s."""
    state = State(state_dir)
    data = state.load()
    procs = list(reversed(data["processes"]))
    for p in procs:
        try:
            os.killpg(p["pid"], signal.SIGTERM)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + grace
    for p in procs:
        while _alive(p["pid"]) and time.monotonic() < deadline:
            time.sleep(0.05)
        if _alive(p["pid"]):
            try:
                os.killpg(p["pid"], signal.SIGKILL)
            except ProcessLookupError:
                pass
    data["processes"] = []
    data["urls"] = {}
    state.save(data)
    for p in procs:
        progress("stopped %s (pid %d)" % (p["name"], p["pid"]))


def stop_one(state_dir, name):
    """Stops only the processes named `name` (e.g. to take a cache away mid-build)."""
    state = State(state_dir)
    data = state.load()
    for p in data["processes"]:
        if p["name"] == name:
            try:
                os.killpg(p["pid"], signal.SIGKILL)
            except ProcessLookupError:
                pass
            while _alive(p["pid"]):
                time.sleep(0.01)
    data["processes"] = [p for p in data["processes"] if p["name"] != name]
    state.save(data)


STARTERS = {"nginx": start_nginx, "buildgrid": start_buildgrid, "farm": start_farm}


def main(argv):
    if len(argv) == 3 and argv[0] == "start" and argv[1] in STARTERS:
        try:
            print(STARTERS[argv[1]](argv[2]))
        except (ServiceError, subprocess.CalledProcessError) as e:
            print("%s ERROR: %s" % (TAG, e), file=sys.stderr)
            stop(argv[2])
            return 1
        return 0
    if len(argv) == 2 and argv[0] == "stop":
        stop(argv[1])
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
