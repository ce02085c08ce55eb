"""Running toolchain commands and writing outputs atomically.

A failing tool is a user error (the source does not compile, an object is
malformed), reported with the step, the tool's own message and the command.
Outputs are written where no reader sees them (an anonymous O_TMPFILE in the
destination's directory, or a tool's scratch directory under $TMPDIR) and
published only when complete (publish), so an interrupted, failed or killed
step never leaves a partial file, a mix of old and new files, or a temporary
file among the outputs.
"""

from __future__ import annotations

import contextlib
import errno
import os

from sk.base import infile
from sk.base.errors import SkError
from sk.base.outfile import output_problem

# Long enough for a big C++ translation unit; a hung tool still ends the action.
TOOL_TIMEOUT_S = 900


def start_tool(argv: list[str], *, step: str, where: str, stdin: str | None = None,
               cwd: str | None = None) -> "Started":
    """Starts one command (in `cwd`, else ours) and returns at once; wait() reports it as run_tool does.
    SkError if it cannot start."""
    import subprocess  # here, not at the top: 5 ms that `sk link` need not wait for before its first tool

    check_tool_inputs(argv, step=step, where=where)
    try:
        # Diagnostics decoded leniently: a binary source makes the compiler quote bytes that are not UTF-8.
        proc = subprocess.Popen(argv, stdin=None if stdin is None else subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, errors="replace", cwd=cwd)
    except FileNotFoundError:
        raise _not_found(argv, step, where) from None
    except PermissionError:
        raise SkError(f"{step}: tool is not executable", where=where, value=argv[0]) from None
    return Started(proc, argv, step, where, stdin)


def check_tool_inputs(argv: list[str], *, step: str, where: str) -> None:
    """The input gate's last line, before a tool starts: every argument must be text a C string can hold,
    and every one that names an existing path a regular file or directory outside /proc, /sys and /dev
    (a FIFO blocks the compiler or the linker for ever, /dev/zero makes it allocate without end). The
    CLI's gates (sk/cli/gates.py) have checked the flags already; this catches the paths that come out
    of JSON (objects, sources, libraries) and anything a command forgot."""
    for i, arg in enumerate(argv):
        problem = infile.text_problem(arg)
        if problem:
            raise SkError(f"{step}: a tool argument {problem}", where=where, value=arg)
        if i == 0 or arg.startswith("-") or not os.path.lexists(arg):
            continue  # a flag, or an output the tool makes (in a scratch directory)
        problem = infile.input_problem(arg, want="any", limit=infile.OBJECT_LIMIT)
        if problem:
            raise SkError(f"{step}: the tool's input {arg!r} {problem}", where=where,
                          allowed="a regular file (sk hands no special file to a tool)")


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


def run_tool(argv: list[str], *, step: str, where: str, stdin: str | None = None, cwd: str | None = None) -> str:
    """Runs one command (in `cwd`, else ours); returns its stdout. SkError with its stderr on failure."""
    return start_tool(argv, step=step, where=where, stdin=stdin, cwd=cwd).wait()


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
    """Yields a temp path for a tool to write `path` to; publishes it if the block succeeds.

    The temp file lives in a private scratch directory (scratch_dir), never in
    the output's directory: a process killed meanwhile leaves no file there.
    """
    with scratch_dir(path) as work:
        tmp = os.path.join(work, "out" + (suffix or os.path.splitext(path)[1]))
        yield tmp
        publish([stage_file(path, tmp)])


def write_text_atomic(path: str, text: str) -> None:
    publish([stage(path, text)])


@contextlib.contextmanager
def scratch_dir(near: str):
    """A private temporary directory for a step's intermediate files, removed afterwards.

    In $TMPDIR (else /tmp), not beside the output `near`: a step killed by
    SIGKILL cannot clean up, and what it leaves must not sit among outputs.
    What such a step left is removed by the next sk process that makes a
    scratch directory there: each one holds a lock (flock) on a file inside
    it for its life, which the kernel releases when its process dies.
    """
    del near  # where the outputs go does not matter any more (publish copies across filesystems)
    base = os.environ.get("TMPDIR") or "/tmp"
    if not os.path.isdir(base):
        base = "/tmp"
    _sweep_once(base)
    # Made under another prefix and renamed when locked, so a sweep never sees it unlocked.
    new = _fresh_name(base, _NEW_PREFIX, "", lambda p: os.mkdir(p, 0o700))
    lock = _lock_inside(new)
    tmp = _fresh_name(base, _SCRATCH_PREFIX, "", lambda p: _rename_new(new, p))
    try:
        yield tmp
    finally:
        import shutil  # argparse has loaded it already in the sk tool

        shutil.rmtree(tmp, ignore_errors=True)
        if lock is not None:
            os.close(lock)


# Not `.sk-work-`, the name older sk versions give their unlocked scratch directories: a sweep must not
# take a live one of theirs for a dead one of ours.
_SCRATCH_PREFIX, _NEW_PREFIX, _LOCK_NAME = ".sk-scratch-", ".sk-new-", ".held"
_swept: set = set()


def _lock_inside(directory: str) -> int | None:
    """An fd holding an exclusive flock on `directory`/.held; None where the file system has no locks
    (the directory is then never swept: nothing can tell whether its process lives)."""
    import fcntl

    fd = os.open(os.path.join(directory, _LOCK_NAME), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        # The file stays: without it a sweep would take the directory for one killed while it was removed.
        os.close(fd)
        return None
    return fd


def _rename_new(new: str, path: str) -> None:
    if os.path.lexists(path):
        raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), path)
    os.rename(new, path)


def _sweep_once(base: str) -> None:
    """Removes the scratch directories in `base` whose process died (their lock is free), once per
    process and base; directories of other users and ones it cannot lock are left alone."""
    if base in _swept:
        return
    _swept.add(base)
    import fcntl
    import shutil
    import time

    uid = os.getuid()
    try:
        entries = list(os.scandir(base))
    except OSError:
        return
    for entry in entries:
        # A `.sk-new-` directory is unlocked for a moment in a live process; one a minute old was left by a kill.
        fresh = entry.name.startswith(_NEW_PREFIX)
        if not (fresh or entry.name.startswith(_SCRATCH_PREFIX)):
            continue
        try:
            st = entry.stat(follow_symlinks=False)
            if not entry.is_dir(follow_symlinks=False) or st.st_uid != uid or fresh and time.time() - st.st_mtime < 60:
                continue
            fd = os.open(os.path.join(entry.path, _LOCK_NAME), os.O_RDWR | os.O_CLOEXEC | os.O_NOFOLLOW)
        except FileNotFoundError:
            # No lock file: a `.sk-new-` one was killed before it locked, a scratch one while it was removed.
            shutil.rmtree(entry.path, ignore_errors=True)
            continue
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            continue
        try:
            shutil.rmtree(entry.path, ignore_errors=True)
        finally:
            os.close(fd)


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
    """Content already written elsewhere: at `path` (moved or copied into place), or in `fd`, an
    anonymous file of the destination's directory (anonymous_file), linked into place."""

    def __init__(self, path: str | None = None, fd: int | None = None):
        self.path, self.fd = path, fd


def anonymous_file(directory: str) -> int | None:
    """A writable file in `directory` with no name (O_TMPFILE): it vanishes if the process dies before
    publish() names it. None where the filesystem or OS has none (or /proc, which naming it needs)."""
    flag = getattr(os, "O_TMPFILE", 0)
    if not flag or not os.path.isdir("/proc/self/fd"):
        return None
    try:
        fd = os.open(directory, flag | os.O_RDWR | getattr(os, "O_CLOEXEC", 0), 0o644)
    except OSError as err:
        if err.errno in (errno.EOPNOTSUPP, errno.EISDIR, errno.EINVAL, errno.ENOTSUP):
            return None
        raise
    os.fchmod(fd, 0o644)
    return fd


class Staged:
    """A new version of `dest`, complete and not yet visible: an anonymous file (`fd`) in its
    directory, or a file at `path` (a hidden temp file beside it where there is no O_TMPFILE, or a
    tool's output in a scratch directory)."""

    __slots__ = ("dest", "fd", "path", "_owned")

    def __init__(self, dest: str, fd: int | None = None, path: str | None = None, owned: bool = True):
        self.dest, self.fd, self.path, self._owned = dest, fd, path, owned

    def place(self) -> None:
        """Gives the content its name (the destination must not exist: publish removed it)."""
        if self.fd is not None:
            # linkat(AT_SYMLINK_FOLLOW) names the anonymous file; os.link calls plain link() (which
            # would link the /proc symlink itself) unless a directory fd is given.
            directory = os.open(os.path.dirname(os.path.abspath(self.dest)), os.O_RDONLY | os.O_DIRECTORY)
            try:
                os.link(f"/proc/self/fd/{self.fd}", os.path.basename(self.dest), dst_dir_fd=directory,
                        follow_symlinks=True)
            finally:
                os.close(directory)
            return
        try:
            os.rename(self.path, self.dest)
            self.path = None
        except OSError as err:
            if err.errno != errno.EXDEV:
                raise
            copy = _staged_copy(self.dest, self.path)
            try:
                copy.place()
            finally:
                copy.discard()

    def discard(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None
        if self.path is not None and self._owned:
            with contextlib.suppress(OSError):
                os.unlink(self.path)
        self.path = None


def _destination_dir(dest: str) -> str:
    directory = os.path.dirname(os.path.abspath(dest))
    os.makedirs(directory, exist_ok=True)
    return directory


def stage(dest: str, content) -> Staged:
    """`content` (str: UTF-8 text, bytes) staged as the next version of `dest`."""
    directory = _destination_dir(dest)
    data = content.encode("utf-8") if isinstance(content, str) else content
    fd = anonymous_file(directory)
    if fd is None:
        fd, tmp = _temp_file(directory, ".sk-", os.path.splitext(dest)[1])
        try:
            _write_all(fd, data)
            os.fchmod(fd, 0o644)
        finally:
            os.close(fd)
        return Staged(dest, path=tmp)
    try:
        _write_all(fd, data)
    except BaseException:
        os.close(fd)
        raise
    return Staged(dest, fd=fd)


def stage_file(dest: str, path: str) -> Staged:
    """The file at `path` (written by a tool in a scratch directory) staged as the next version of `dest`."""
    _destination_dir(dest)
    os.chmod(path, 0o644)
    return Staged(dest, path=path)


def _staged_copy(dest: str, path: str) -> Staged:
    directory = _destination_dir(dest)
    fd = anonymous_file(directory)
    named = None
    if fd is None:
        fd, named = _temp_file(directory, ".sk-", os.path.splitext(dest)[1])
    try:
        with open(path, "rb") as src:
            size = os.fstat(src.fileno()).st_size
            done = 0
            while done < size:
                sent = os.sendfile(fd, src.fileno(), done, size - done)
                if sent == 0:
                    break
                done += sent
        if named is not None:
            os.fchmod(fd, 0o644)
            os.close(fd)
            return Staged(dest, path=named)
        return Staged(dest, fd=fd)
    except BaseException:
        os.close(fd)
        if named is not None:
            with contextlib.suppress(OSError):
                os.unlink(named)
        raise


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def publish(staged: list) -> None:
    """Puts every staged file in place; each stays in `staged` order, the last one published last.

    All or nothing as a reader sees it, even across a SIGKILL: the
    destinations are checked first (a directory in the way fails here,
    before anything changed); then every previous version is removed, the
    last file (the one that vouches for the others: `sk link`'s JSON with the
    object's sha256, `sk gen`'s kernel JSON) first; then the new versions
    appear, that file last. At no moment do an old and a new file stand side
    by side, so a reader that finds the last file finds all of them and of one
    build; and no temporary name ever appears in the output directory (the
    new content is in anonymous files until it is named). Errors name the
    destination (OSError.filename). The staged files are consumed.
    """
    try:
        for s in staged:
            # The output gate's last line: renaming over a device, a FIFO or a directory is never right.
            problem = output_problem(s.dest)
            if problem:
                raise SkError(f"output {problem}; nothing was written", where=s.dest)
        for s in reversed(staged):
            try:
                os.unlink(s.dest)
            except FileNotFoundError:
                pass
            except OSError as err:
                raise OSError(err.errno, err.strerror, s.dest) from None
        for s in staged:
            try:
                s.place()
            except OSError as err:
                raise OSError(err.errno, err.strerror, s.dest) from None
    finally:
        for s in staged:
            s.discard()


def write_files_atomic(files: dict[str, "str | bytes | WrittenFile"]) -> None:
    """Writes several outputs all or nothing (publish): {path: text, bytes or a WrittenFile}, in the
    order they should appear, the one that vouches for the others last."""
    staged: list[Staged] = []
    try:
        for path, content in files.items():
            if isinstance(content, WrittenFile):
                if content.fd is not None:
                    os.fchmod(content.fd, 0o644)
                    staged.append(Staged(path, fd=content.fd))
                else:
                    staged.append(stage_file(path, content.path))
                continue
            staged.append(stage(path, content))
    except BaseException:
        for s in staged:
            s.discard()
        for content in files.values():
            if isinstance(content, WrittenFile):
                Staged("", fd=content.fd, path=content.path).discard()
        raise
    publish(staged)
