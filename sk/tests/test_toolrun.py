"""run_tools: independent commands at once, errors as run_tool reports them, first failing job first."""

import os
import stat
import time

import pytest

from sk.errors import SkError
from sk.toolrun import run_tool, run_tools


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
