"""Running toolchain commands and writing outputs atomically.

A failing tool is a user error (the source does not compile, an object is
malformed), reported with the step, the tool's own message and the command.
Outputs are written to a temporary file in the destination directory and
renamed into place, so an interrupted or failed step never leaves a partial
file and never replaces a previous good one.
"""

from __future__ import annotations

import contextlib
import errno
import os

from sk.base.errors import SkError

# Long enough for a big C++ translation unit; a hung tool still ends the action.
TOOL_TIMEOUT_S = 900


def start_tool(argv: list[str], *, step: str, where: str, stdin: str | None = None) -> "Started":
    """Starts one command and returns at once; wait() reports it as run_tool does. SkError if it cannot start."""
    import subprocess  # here, not at the top: 5 ms that `sk link` need not wait for before its first tool

    try:
        proc = subprocess.Popen(argv, stdin=None if stdin is None else subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
    except FileNotFoundError:
        raise _not_found(argv, step, where) from None
    except PermissionError:
        raise SkError(f"{step}: tool is not executable", where=where, value=argv[0]) from None
    return Started(proc, argv, step, where, stdin)


class Started:
    """A command start_tool started: wait() for its output, or kill() it (from any thread)."""

    __slots__ = ("_proc", "argv", "step", "where", "_stdin")

    def __init__(self, proc, argv, step, where, stdin):
        self._proc, self.argv, self.step, self.where, self._stdin = proc, argv, step, where, stdin

    def _finish(self) -> tuple[int, str, str]:
        """(exit status, stdout, stderr) once it ended; SkError (and the process killed) after TOOL_TIMEOUT_S."""
        import subprocess

        try:
            out, err = self._proc.communicate(input=self._stdin, timeout=TOOL_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.communicate()
            raise _timed_out(self.argv, self.step, self.where) from None
        return self._proc.returncode, out, err

    def wait(self) -> str:
        """Its stdout; SkError with its stderr if it failed."""
        code, out, err = self._finish()
        _check(code, out, err, self.argv, self.step, self.where)
        return out

    def kill(self) -> None:
        """Ends it if it still runs; whoever waits for it sees it fail (safe while another thread waits)."""
        if self._proc.returncode is None:
            try:
                self._proc.kill()
            except OSError:  # already gone
                pass

    def stop(self) -> None:
        """kill() and reap it, for a command nobody waits for."""
        self.kill()
        if self._proc.returncode is None:
            self._proc.communicate()


def run_tool(argv: list[str], *, step: str, where: str, stdin: str | None = None) -> str:
    """Runs one command; returns its stdout. SkError with its stderr on failure."""
    return start_tool(argv, step=step, where=where, stdin=stdin).wait()


def wait_all(started: list[Started]) -> None:
    """Waits for every command; SkError as run_tool for the first failing one in list order.

    The error does not depend on which finished first. A command that runs
    past TOOL_TIMEOUT_S is reported at once, and the others are killed.
    """
    results = []
    try:
        for tool in started:
            results.append(tool._finish())
    finally:
        for tool in started[len(results):]:
            tool.stop()
    for (code, out, err), tool in zip(results, started):
        _check(code, out, err, tool.argv, tool.step, tool.where)


def run_tools(jobs: list[tuple[list[str], str, str]]) -> None:
    """Runs independent commands [(argv, step, where)] at the same time; SkError as run_tool.

    Several small objcopy runs of one step overlap instead of queueing. Every
    command is waited for; a failure is reported for the first failing job
    in list order, so the error does not depend on which finished first.
    """
    started = []
    try:
        for argv, step, where in jobs:
            started.append(start_tool(argv, step=step, where=where))
    except SkError:
        for tool in started:  # a job that cannot start ends the step: the others are not left running
            tool.stop()
        raise
    wait_all(started)


def _not_found(argv, step, where) -> SkError:
    return SkError(f"{step}: tool not found", where=where, value=argv[0],
                   allowed="pass the tool's path (--compiler, --ld, --objcopy)")


def _timed_out(argv, step, where) -> SkError:
    import shlex

    return SkError(f"{step}: tool did not finish within {TOOL_TIMEOUT_S} s", where=where, value=shlex.join(argv))


def _check(returncode: int, stdout: str, stderr: str, argv, step: str, where: str) -> None:
    if returncode != 0:
        import shlex

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
    fd, tmp = _temp_file(directory, ".sk-", suffix or os.path.splitext(path)[1])
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
    tmp = _fresh_name(directory, ".sk-work-", "", lambda p: os.mkdir(p, 0o700))
    try:
        yield tmp
    finally:
        import shutil  # argparse has loaded it already in the sk tool

        shutil.rmtree(tmp)


# Characters and length of a temporary name, as tempfile's: 37^8 names, retried when taken.
_NAME_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789_"


def _fresh_name(directory: str, prefix: str, suffix: str, claim) -> str:
    """A random name in `directory` that claim(path) created (FileExistsError where it was taken).

    tempfile's own scheme, without importing tempfile and random (4 ms of
    every `sk link` before its first tool could start).
    """
    for _ in range(10000):
        name = "".join(_NAME_CHARS[b % len(_NAME_CHARS)] for b in os.urandom(8))
        path = os.path.join(directory, prefix + name + suffix)
        try:
            claim(path)
        except FileExistsError:
            continue
        return path
    raise FileExistsError(errno.EEXIST, "no unused temporary name", directory)


def _temp_file(directory: str, prefix: str, suffix: str) -> tuple[int, str]:
    """(fd, path) of a new file only this process can read, as tempfile.mkstemp makes."""
    fds = []
    path = _fresh_name(directory, prefix, suffix,
                       lambda p: fds.append(os.open(p, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)))
    return fds[0], path


class WrittenFile:
    """Content already written to `path`, a temp file in the destination's directory (moved, not copied)."""

    def __init__(self, path: str):
        self.path = path


def write_files_atomic(files: dict[str, "str | bytes | WrittenFile"]) -> None:
    """Writes several outputs all or nothing: {path: text, bytes or a WrittenFile}.

    Every file is first written to a temp file beside its destination; only
    when all are complete are they renamed into place. Should a rename fail
    midway, the ones already replaced get their previous version back, so a
    failure leaves neither a new file nor a mix of old and new ones. A
    WrittenFile is such a temp file already; it is gone afterwards either way.
    """
    temps: dict[str, str] = {}
    try:
        for path, content in files.items():
            if isinstance(content, WrittenFile):
                temps[path] = content.path
                os.chmod(content.path, 0o644)
                continue
            directory = os.path.dirname(os.path.abspath(path))
            os.makedirs(directory, exist_ok=True)
            fd, tmp = _temp_file(directory, ".sk-", os.path.splitext(path)[1])
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
                    import shutil

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
