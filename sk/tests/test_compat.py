"""Upstream's call shape writes into kernel_meta."""

import json
import os

import pytest

from sk.cli import compat
from sk.base.errors import SkError
from sk.tests.scenario import write_scenario


def test_compile_writes_kernel_meta(tmp_path, monkeypatch):
    path = write_scenario(tmp_path / "in", [("a", {}, {}), ("b", {}, {})])
    infos = json.loads(open(path).read())
    infos.pop("kernel_name")
    monkeypatch.chdir(tmp_path / "in")
    files = compat.compile(infos, "te_superkernel_x")
    assert files["source"] == os.path.join(str(tmp_path / "in"), "kernel_meta", "te_superkernel_x_kernel.cpp")
    assert sorted(os.listdir(tmp_path / "in" / "kernel_meta")) == [
        "te_superkernel_x.compile_options.json", "te_superkernel_x.json", "te_superkernel_x.plan.json",
        "te_superkernel_x_kernel.cpp"]


def test_compile_infos_directories_and_soc(tmp_path):
    path = write_scenario(tmp_path / "in", [("a", {}, {})])
    infos = json.loads(open(path).read())
    out = tmp_path / "meta"
    compat.compile(infos, "te_y", {"base_dir": str(tmp_path / "in"), "kernel_meta_dir": str(out),
                                   "soc_version": "Ascend910B3"})
    assert json.loads((out / "te_y.plan.json").read_text())["soc"]["ai_core_cnt"] == 20
    with pytest.raises(SkError, match="unknown SoC"):
        compat.compile(infos, "te_y", {"base_dir": str(tmp_path / "in"), "soc_version": "nope"})
