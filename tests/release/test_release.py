"""tools/release.sh: the archive a registry points at, with the version stamped where it is carried.

Runs the script on a small git repository shaped like this one (its three
version lines are copied from the real files), outside Bazel: it archives a
commit, which a Bazel sandbox does not have.
"""

from __future__ import annotations

import pathlib
import shutil
import subprocess
import tarfile

REPO = pathlib.Path(__file__).resolve().parents[2]
CARRIERS = ["MODULE.bazel", "pyproject.toml", "sk/__init__.py"]


def _git(cwd: pathlib.Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=cwd, check=True,
                   capture_output=True)


def _fixture(tmp_path: pathlib.Path) -> pathlib.Path:
    repo = tmp_path / "repo"
    for rel in CARRIERS + ["tools/release.sh", "LICENSE"]:
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / rel, repo / rel)
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "fixture")
    return repo


def _release(repo: pathlib.Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "tools/release.sh", *args], cwd=repo, capture_output=True, text=True)


def test_archive_is_stamped_prefixed_and_reproducible(tmp_path):
    repo = _fixture(tmp_path)
    first = _release(repo, "1.2.3", str(tmp_path / "a"))
    assert first.returncode == 0, first.stderr
    second = _release(repo, "1.2.3", str(tmp_path / "b"))
    archive = tmp_path / "a" / "rules_superkernel-v1.2.3.tar.gz"
    assert archive.read_bytes() == (tmp_path / "b" / archive.name).read_bytes()
    assert "integrity: sha256-" in first.stdout and first.stdout == second.stdout.replace("/b/", "/a/")
    with tarfile.open(archive) as tar:
        names = tar.getnames()
        assert all(n.startswith("rules_superkernel-1.2.3") for n in names), names
        texts = {rel: tar.extractfile("rules_superkernel-1.2.3/" + rel).read().decode() for rel in CARRIERS}
    assert '\n    version = "1.2.3",\n' in texts["MODULE.bazel"]
    assert '\nversion = "1.2.3"\n' in texts["pyproject.toml"]
    assert '\n__version__ = "1.2.3"\n' in texts["sk/__init__.py"]
    # Only the version lines changed.
    for rel in CARRIERS:
        before = (REPO / rel).read_text().splitlines()
        after = texts[rel].splitlines()
        assert len(before) == len(after)
        assert sum(a != b for a, b in zip(before, after)) == 1, rel


def test_bad_version_and_dirty_tree_are_refused(tmp_path):
    repo = _fixture(tmp_path)
    bad = _release(repo, "v1", str(tmp_path / "out"))
    assert bad.returncode == 2 and "'v1' is not a version" in bad.stderr
    (repo / "MODULE.bazel").write_text("changed\n")
    dirty = _release(repo, "1.0.0", str(tmp_path / "out"))
    assert dirty.returncode == 2 and "commit or stash" in dirty.stderr
