"""The sync-call scan: upstream's patterns and thresholds, and the twin header's share of them."""

import json
import shutil
import subprocess

import pytest

from sk.base.errors import SkError
from sk.toolflow import subkernel
from sk.toolflow import syncscan
from sk.toolflow import toolargv
from sk.engine.inherited import inherited

GXX = shutil.which("g++")


def calls(text):
    return syncscan.decide(syncscan.count(text))


# What Ascend C's interface headers put into one side's preprocessed text, and into the two joined.
SIDE_HEADER = "void SyncAll(); void SetNextTaskStart(); void WaitPreTaskEnd();\n"
HEADER = SIDE_HEADER * 2


def test_a_templated_sync_all_counts_at_once():
    assert calls(HEADER + "AscendC::SyncAll<true>();").sync_all
    assert calls(HEADER + "SyncAll <isAIVOnly> ( ) ;").sync_all
    assert not calls(HEADER + "SyncAll< true >();").sync_all  # upstream's pattern: no blanks inside <>
    assert calls("AscendC::SyncAll<false>();") == syncscan.SyncCalls(True, False, False)


def test_bare_calls_must_outnumber_the_headers_two():
    assert calls(HEADER) == syncscan.NONE
    assert calls(HEADER + "AscendC::SyncAll();") == syncscan.SyncCalls(True, False, False)
    assert calls(HEADER + "SetNextTaskStart<PIPE_MTE3, PIPE_FIX, true>();").set_next_task_start
    assert calls(HEADER + "WaitPreTaskEnd();") == syncscan.SyncCalls(False, False, True)
    # The Impl forms the SK entry calls are other names; a definition is no call.
    assert calls(HEADER + "WaitPreTaskEndImpl<5>(); void SetNextTaskStart() { }") == syncscan.NONE


def test_document_joins_the_two_sides_and_read_round_trips(tmp_path):
    doc = syncscan.document({"cube": syncscan.count(SIDE_HEADER),
                             "vec": syncscan.count(SIDE_HEADER + "SyncAll<true>();")})
    assert doc["sync_all"] is True and doc["set_next_task_start"] is False
    assert doc["counts"]["vec"]["sync_all_templated"] == 1 and doc["header_occurrences"] == 2
    # One bare call on one side is found in the joined texts (upstream's rule), though that side alone
    # holds no more than two matches.
    one = syncscan.document({"cube": syncscan.count(SIDE_HEADER + "SetNextTaskStart();"),
                             "vec": syncscan.count(SIDE_HEADER)})
    assert one["set_next_task_start"] is True and one["sync_all"] is False
    path = tmp_path / "scan.json"
    path.write_text(syncscan.write_text(doc))
    assert syncscan.read(str(path)) == syncscan.SyncCalls(True, False, False)


@pytest.mark.parametrize("content,message", [
    (None, "cannot read the sync scan file"),
    ("{", "not JSON"),
    (json.dumps({"sync_all": 1, "set_next_task_start": False, "wait_pre_task_end": False}), "not a sync scan file"),
    (json.dumps([]), "not a sync scan file"),
])
def test_a_bad_scan_file_is_a_user_error(tmp_path, content, message):
    path = tmp_path / "scan.json"
    if content is not None:
        path.write_text(content)
    with pytest.raises(SkError, match=message):
        syncscan.read(str(path))


@pytest.mark.skipif(not GXX, reason="needs g++ on PATH")
@pytest.mark.parametrize("options,loc", [("", "middle"), ("feed-sync-all=1:early-start=1", "start"),
                                         ("stream-fusion=1", "end")])
def test_the_twin_header_contributes_what_upstream_discounts(tmp_path, options, loc):
    """The rule's thresholds hold on the twin because its kernel_operator.h declares each API once, so the
    cube and vector texts joined hold two."""
    from sk.twin import binding

    out = tmp_path / "header.i"
    defines = subkernel.sk_defines(8, inherited(options), "", loc)
    argv = toolargv.preprocess_argv(toolargv.Tools("host", compiler=GXX), "-", str(out), arch=None,
                                    defines=defines, include_dirs=[str(binding.INCLUDE_DIR)])
    subprocess.run(argv, input='#include "kernel_operator.h"\n', text=True, check=True)
    per_text = syncscan.HEADER_OCCURRENCES // len(syncscan.SIDES)
    assert per_text == 1
    assert syncscan.count(out.read_text()) == {
        "sync_all_templated": 0,
        "sync_all": per_text,
        "set_next_task_start": per_text,
        "wait_pre_task_end": per_text,
    }
