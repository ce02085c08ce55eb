"""The fusion report renders what the plan says, and fails cleanly on bad input."""

import json

import pytest

from sk.cli import main as cli
from sk.render.report import render

PLAN = {
    "kernel_name": "sk_demo", "kernel_type": "KERNEL_TYPE_MIX_AIC_1_2", "task_ration": "1:2", "block_dim": 8,
    "mode": "single_stream", "early_start": 1, "split_mode": 4, "options": {"split-mode": 4}, "warnings": ["w1"],
    "ops": [
        {"index": 0, "kernel_name": "gmm", "kernel_type": "KERNEL_TYPE_MIX_AIC_1_2", "block_dim": 8,
         "cores": {"aic": 8, "aiv": 16}, "stream_id": 0, "param_offset": 1, "sync_all": False, "feed_sync_all": False,
         "funcs": [{"text_size": 4080, "preload_count": 2, "splits": [{}, {}, {}]}]},
        {"index": 1, "kernel_name": "swiglu", "kernel_type": "KERNEL_TYPE_AIV_ONLY", "block_dim": 16,
         "cores": {"aic": 0, "aiv": 16}, "stream_id": 0, "param_offset": 5, "sync_all": True, "feed_sync_all": True,
         "funcs": [{"text_size": 10224, "preload_count": 5, "splits": []}]},
    ],
    "barriers": [{"between": [0, 1], "kind": "early_start", "reason": "MIX -> AIV"}],
    "link_order": [{}, {}, {}],
    "entries": [{"symbol": "sk_demo_mix_aic"}, {"symbol": "sk_demo_mix_aiv"}],
}


def test_report_lists_ops_barriers_and_hash():
    text = render(PLAN, {"kernelName": "sk_demo", "blockDim": 8, "taskRation": "1:2", "sha256": "ab" * 32})
    assert "# SuperKernel `sk_demo`" in text
    assert "| 0 | `gmm` | MIX_AIC_1_2 | 8 | 8/16 | 0 | 1 | 4080 | 2 | 3 |  |  |" in text
    assert "| 1 | `swiglu` | AIV_ONLY | 16 | 0/16 | 0 | 5 | 10224 | 5 | 0 | yes | yes |" in text
    assert "| 0 → 1 | early_start | MIX -> AIV |" in text
    assert "ab" * 32 in text
    assert "* w1" in text


def test_report_cli_bad_json_is_a_user_error(tmp_path, capsys):
    plan = tmp_path / "plan.json"
    plan.write_text("{not json")
    meta = tmp_path / "meta.json"
    meta.write_text("{}")
    out = tmp_path / "r.md"
    assert cli.main(["report", "--plan", str(plan), "--meta", str(meta), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "plan is not valid JSON" in err
    assert not out.exists()


def test_report_cli_writes_file(tmp_path):
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(PLAN))
    meta = tmp_path / "meta.json"
    meta.write_text("{}")
    out = tmp_path / "r.md"
    assert cli.main(["report", "--plan", str(plan), "--meta", str(meta), "-o", str(out)]) == 0
    assert "(not linked)" in out.read_text()
