"""artefact_scan: finds run-specific bytes (paths, names, pids, times) in artefacts."""

import shutil
import subprocess
import time

import pytest

import artefact_scan

NOW = time.mktime((2026, 11, 25, 12, 0, 0, 0, 0, 0))


def kinds(data, needles=(), now=NOW):
    return [f.kind for f in artefact_scan.scan_bytes("a", data, list(needles), now)]


def test_clean_json_and_binary_have_no_findings():
    clean = b'{"block_dim": 8, "kernel": "add_100", "path": "bazel-out/k8-fastbuild/bin/x.o", "size": 123456}\n'
    clean += bytes(range(256)) * 4
    needles = artefact_scan.literal_needles(["/tmp/sk-cache-check-abc/clone-one"], user="alice", host="buildhost7")
    assert kinds(clean, needles) == []


@pytest.mark.parametrize("data, kind", [
    (b"compiled in /home/alice/src", "absolute path"),
    (b"\x00/tmp/sk-1234/x.cpp\x00", "absolute path"),
    (b"-I/root/.cache/y", "absolute path"),
    (b"../execroot/_main/bazel-out", "bazel execroot path"),
    (b"linux-sandbox/3/sandbox/x", "bazel execroot path"),
    (b"built by pid=31337", "pid"),
    (b'"PID": 4242', "pid"),
    (b"at 2026-11-25T21:59:37Z", "ISO date-time"),
    (b"at 2026-11-25 21:59", "ISO date-time"),
    (b"__DATE__ Nov 25 2026", "date"),
    (b"time 21:59:37\n", "clock time"),
    (b'"built": 1795000000,', "Unix time"),
    (b'"built_ms": 1795000000123}', "Unix time"),
    (b'"t": 1795644852.88473}', "Unix time"),
])
def test_each_kind_of_leak_is_found(data, kind):
    assert kind in kinds(data)


def test_numbers_far_from_now_are_not_times():
    assert kinds(b'{"elements": 1000000000, "bytes": 1200000000000}') == []


def test_literals_are_found_and_names_only_as_words():
    needles = artefact_scan.literal_needles(["/srv/ci/work-17/"], user="alice", host="buildhost7")
    assert kinds(b"at /srv/ci/work-17/out", needles) == ["directory /srv/ci/work-17"]
    assert kinds(b"at /srv/ci/work-170/out", needles) == []
    assert kinds(b"user alice here", needles) == ["user name"]
    assert kinds(b"malice aforethought", needles) == []
    assert kinds(b"buildhost7.example", needles) == ["host name"]


def test_generic_names_are_not_needles():
    assert artefact_scan.literal_needles([], user="root", host="localhost") == []
    assert artefact_scan.literal_needles(["/"], user="ab") == []


def test_findings_say_where_and_show_context(tmp_path):
    p = tmp_path / "x.json"
    data = b'{"a": "ok", "src": "/home/bob/k.cpp", "rel": "bazel-out/k8/bin/tmp/x"}'
    p.write_bytes(data)
    findings = artefact_scan.scan_files({"out/x.json": str(p)}, [], NOW)
    assert [(f.path, f.offset, f.kind) for f in findings] == [("out/x.json", data.index(b"/home"), "absolute path")]
    assert "/home/bob/k.cpp" in artefact_scan.format_findings(findings)


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc not on PATH")
def test_real_object_with_debug_info_leaks_its_build_dir_and_a_clean_one_does_not(tmp_path):
    """gcc -g records the compile directory (DW_AT_comp_dir); the scanner must see it in the raw ELF."""
    src = tmp_path / "k.c"
    src.write_text("int k(int x) { return x + 1; }\n")
    leaky, clean = tmp_path / "leaky.o", tmp_path / "clean.o"
    subprocess.run(["gcc", "-g", "-c", "k.c", "-o", str(leaky)], cwd=tmp_path, check=True)
    subprocess.run(["gcc", "-g", "-fdebug-prefix-map=%s=." % tmp_path, "-c", "k.c", "-o", str(clean)],
                   cwd=tmp_path, check=True)
    needles = artefact_scan.literal_needles([str(tmp_path)])
    leaked = artefact_scan.scan_files({"leaky.o": str(leaky)}, needles)
    assert any(f.kind.startswith("directory ") for f in leaked)
    assert artefact_scan.scan_files({"clean.o": str(clean)}, needles) == []
