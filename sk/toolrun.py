"""Running toolchain commands and writing outputs atomically.

A failing tool is a user error (the source does not compile, an object is
malformed), reported with the step, the tool's own message and the command.
Outputs are written to a temporary file in the destination directory and
renamed into place, so an interrupted or failed step never leaves a partial
file and never replaces a previous good one.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import subprocess
import tempfile

from sk.errors import SkError

# Long enough for a big C++ translation unit; a hung tool still ends the action.
TOOL_TIMEOUT_S = 900


def run_tool(argv: list[str], *, step: str, where: str, stdin: str | None = None) -> str:
    """Runs one command; returns its stdout. SkError with its stderr on failure."""
    try:
        proc = subprocess.run(argv, input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              timeout=TOOL_TIMEOUT_S, check=False)
    except FileNotFoundError:
        raise _not_found(argv, step, where) from None
    except PermissionError:
        raise SkError(f"{step}: tool is not executable", where=where, value=argv[0]) from None
    except subprocess.TimeoutExpired:
        raise _timed_out(argv, step, where) from None
    _check(proc.returncode, proc.stdout, proc.stderr, argv, step, where)
    return proc.stdout


def run_tools(jobs: list[tuple[list[str], str, str]]) -> None:
    """Runs independent commands [(argv, step, where)] at the same time; SkError as run_tool.

    Several small objcopy runs of one step overlap instead of queueing. Every
    command is waited for; a failure is reported for the first failing job
    in list order, so the error does not depend on which finished first.
    """
    if len(jobs) < 2:
        for argv, step, where in jobs:
            run_tool(argv, step=step, where=where)
        return
    procs = []
    try:
        for argv, step, where in jobs:
            try:
                procs.append(subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
            except FileNotFoundError:
                raise _not_found(argv, step, where) from None
            except PermissionError:
                raise SkError(f"{step}: tool is not executable", where=where, value=argv[0]) from None
        results = []
        for proc, (argv, step, where) in zip(procs, jobs):
            try:
                out, err = proc.communicate(timeout=TOOL_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                raise _timed_out(argv, step, where) from None
            results.append((proc.returncode, out, err))
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
    for (code, out, err), (argv, step, where) in zip(results, jobs):
        _check(code, out, err, argv, step, where)


def _not_found(argv, step, where) -> SkError:
    return SkError(f"{step}: tool not found", where=where, value=argv[0],
                   allowed="pass the tool's path (--compiler, --ld, --objcopy)")


def _timed_out(argv, step, where) -> SkError:
    return SkError(f"{step}: tool did not finish within {TOOL_TIMEOUT_S} s", where=where, value=shlex.join(argv))


def _check(returncode: int, stdout: str, stderr: str, argv, step: str, where: str) -> None:
    if returncode != 0:
        message = (stderr or stdout).strip()
        lines = message.splitlines()
        if len(lines) > 40:  # the first errors are the useful ones
            message = "\n".join(lines[:40] + [f"... ({len(lines) - 40} more lines)"])
        raise SkError(f"{step} failed with exit status {returncode}: {message}", where=where,
                      allowed=f"command: {shlex.join(argv)}")


@contextlib.contextmanager
def atomic_output(path: str, suffix: str = ""):
    """Yields a temp path beside `path`; renames it to `path` if the block succeeds."""
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".sk-", suffix=suffix or os.path.splitext(path)[1], dir=directory)
    os.close(fd)
    try:
        yield tmp
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def write_text_atomic(path: str, text: str) -> None:
    with atomic_output(path) as tmp:
        with open(tmp, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)


@contextlib.contextmanager
def scratch_dir(near: str):
    """A temporary directory beside an output (same filesystem, so renames work)."""
    directory = os.path.dirname(os.path.abspath(near))
    os.makedirs(directory, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".sk-work-", dir=directory) as tmp:
        yield tmp


def write_files_atomic(files: dict[str, str | bytes]) -> None:
    """Writes several outputs all or nothing: {path: text or bytes}.

    Every file is first written to a temp file beside its destination; only
    when all are complete are they renamed into place. Should a rename fail
    midway, the ones already replaced get their previous version back, so a
    failure leaves neither a new file nor a mix of old and new ones.
    """
    temps: dict[str, str] = {}
    try:
        for path, content in files.items():
            directory = os.path.dirname(os.path.abspath(path))
            os.makedirs(directory, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".sk-", suffix=os.path.splitext(path)[1], dir=directory)
            temps[path] = tmp
            mode = "wb" if isinstance(content, bytes) else "w"
            with os.fdopen(fd, mode, **({} if mode == "wb" else {"encoding": "utf-8", "newline": "\n"})) as f:
                f.write(content)
            os.chmod(tmp, 0o644)
        _replace_all(temps)
    finally:
        for tmp in temps.values():
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)


def _replace_all(temps: dict[str, str]) -> None:
    backups: dict[str, str | None] = {}
    try:
        for path, tmp in temps.items():
            backup = None
            if os.path.lexists(path):
                backup = tmp + ".old"
                try:
                    os.link(path, backup)
                except OSError:  # no hard links here: a copy keeps the previous version as well
                    shutil.copyfile(path, backup)
            backups[path] = backup
            os.replace(tmp, path)
    except BaseException:
        for path, backup in backups.items():
            with contextlib.suppress(OSError):
                if backup is None:
                    os.unlink(path)
                else:
                    os.replace(backup, path)
        raise
    finally:
        for backup in backups.values():
            if backup:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(backup)
