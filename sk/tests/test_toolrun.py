"""run_tools: independent commands at once, errors as run_tool reports them, first failing job first."""

import os
import stat
import time

import pytest

from sk.base.errors import SkError
from sk.base.toolrun import run_tool, run_tools, write_files_atomic


def _script(tmp_path, name, body):
    path = tmp_path / name
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return str(path)


def test_jobs_run_at_the_same_time(tmp_path):
    # A rendezvous: each job marks itself started and waits for the other's mark, so the
    # jobs only both succeed when they run at once (queued, the first would give up).
    meet = _script(tmp_path, "meet", 'touch "$1"; i=0\n'
                   'while [ ! -e "$2" ]; do sleep 0.05; i=$((i+1)); [ $i -gt 400 ] && exit 9; done; exit 0\n')
    a, b = str(tmp_path / "a"), str(tmp_path / "b")
    run_tools([([meet, a, b], "meeting", "job a"), ([meet, b, a], "meeting", "job b")])
    assert os.path.exists(a) and os.path.exists(b)


def test_the_first_failing_job_in_list_order_is_reported(tmp_path):
    slow_fail = _script(tmp_path, "slow_fail", "sleep 0.3; echo slow broke >&2; exit 3\n")
    fast_fail = _script(tmp_path, "fast_fail", "echo fast broke >&2; exit 4\n")
    with pytest.raises(SkError) as err:
        run_tools([([slow_fail], "step one", "first"), ([fast_fail], "step two", "second")])
    assert "step one failed with exit status 3: slow broke" in str(err.value) and "first" in str(err.value)


def test_same_error_as_run_tool(tmp_path):
    fail = _script(tmp_path, "fail", "echo nope >&2; exit 1\n")
    ok = _script(tmp_path, "ok", "exit 0\n")
    with pytest.raises(SkError) as single:
        run_tool([fail, "x"], step="objcopy", where="a.o")
    with pytest.raises(SkError) as batch:
        run_tools([([ok], "fine", "b.o"), ([fail, "x"], "objcopy", "a.o")])
    assert str(batch.value) == str(single.value)


def test_missing_tool_is_a_user_error_and_started_jobs_are_stopped(tmp_path):
    marker = tmp_path / "finished"
    sleeper = _script(tmp_path, "sleeper", f'sleep 1; touch "{marker}"\n')
    with pytest.raises(SkError, match="tool not found"):
        run_tools([([sleeper], "sleeping", "one"), ([str(tmp_path / "no_such_tool")], "linking", "two")])
    time.sleep(1.3)
    assert not os.path.exists(marker)  # the first job was killed, not left running


def test_a_started_tool_runs_while_the_caller_goes_on_and_reports_as_run_tool(tmp_path):
    from sk.base.toolrun import start_tool

    fail = _script(tmp_path, "fail", "sleep 0.2; echo nope >&2; exit 1\n")
    started = start_tool([fail, "x"], step="objcopy", where="a.o")
    with pytest.raises(SkError) as late:
        started.wait()
    with pytest.raises(SkError) as single:
        run_tool([fail, "x"], step="objcopy", where="a.o")
    assert str(late.value) == str(single.value)


def test_a_killed_tool_fails_its_waiter_and_stop_reaps_it(tmp_path):
    from sk.base.toolrun import start_tool

    marker = tmp_path / "finished"
    sleeper = _script(tmp_path, "sleeper", f'sleep 1; touch "{marker}"\n')
    started = start_tool([sleeper], step="sleeping", where="one")
    started.kill()
    with pytest.raises(SkError, match="sleeping failed with exit status -9"):
        started.wait()
    started.stop()  # already reaped: nothing to do
    other = start_tool([sleeper], step="sleeping", where="two")
    other.stop()
    time.sleep(1.3)
    assert not marker.exists()


def test_temporary_names_are_fresh_private_and_retried_when_taken(tmp_path):
    from sk.base import toolrun

    taken = []

    def claim(path):
        if not taken:  # the first name is someone else's
            taken.append(path)
            raise FileExistsError(path)
        os.mkdir(path)

    path = toolrun._fresh_name(str(tmp_path), ".sk-scratch-", "", claim)
    assert os.path.isdir(path) and path != taken[0] and os.path.basename(path).startswith(".sk-scratch-")
    fd, name = toolrun._temp_file(str(tmp_path), ".sk-", ".o")
    os.close(fd)
    assert name.endswith(".o") and stat.S_IMODE(os.stat(name).st_mode) == 0o600
    with toolrun.scratch_dir(str(tmp_path / "out" / "x.o")) as work:
        open(os.path.join(work, "f"), "w").close()
    assert not os.path.exists(work)


def test_a_written_file_is_moved_into_place_with_the_others(tmp_path):
    from sk.base.toolrun import WrittenFile

    (tmp_path / "out").mkdir()
    scratch = tmp_path / "out" / ".scratch"
    scratch.write_bytes(b"rendered elsewhere\n")
    os.chmod(scratch, 0o600)
    write_files_atomic({str(tmp_path / "out" / "a.cpp"): WrittenFile(str(scratch)),
                        str(tmp_path / "out" / "a.json"): "{}\n"})
    assert (tmp_path / "out" / "a.cpp").read_bytes() == b"rendered elsewhere\n"
    assert stat.S_IMODE(os.stat(tmp_path / "out" / "a.cpp").st_mode) == 0o644 and not scratch.exists()
    # All or nothing: when another output cannot be written, the written file is gone too.
    scratch.write_bytes(b"again\n")
    with pytest.raises(OSError):
        write_files_atomic({str(tmp_path / "out" / "b.cpp"): WrittenFile(str(scratch)),
                            str(tmp_path / "out" / "a.json" / "x"): "{}"})
    assert not (tmp_path / "out" / "b.cpp").exists() and not scratch.exists()
