"""sk gen's forked helper: the SubOps load_ops gives (errors included) and render_source's text (and error)."""

import copy
import json
import os
import types

import jinja2
import pytest

from sk.base.toolrun import write_files_atomic

from sk.cli import main as cli
from sk.render import codegen
from sk.engine import subop
from sk.engine.platforms import get_platform
from sk.base.errors import SkError
from sk.render.genhelper import GenHelper, helper_share
from sk.tests.scenario import plan_from, write_scenario

@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this OS: the helper works in-process")
def test_forked_helper_renders_the_same_text(split_plan):
    plan = split_plan
    helper = GenHelper.start()
    try:
        assert helper._pid is not None  # really a helper process
        helper.submit(plan)
        text = helper.result()
    finally:
        helper.close()
    assert text == codegen.render_source(plan)


def test_in_process_helper_renders_the_same_text(split_plan):
    plan = split_plan
    helper = GenHelper()
    helper.submit(plan)
    assert helper.result() == codegen.render_source(plan)


def test_a_failing_render_raises_here_as_render_source_does(split_plan):
    code = copy.deepcopy(split_plan.code)
    code["entry"]["body"].append({"kind": "no_such_step"})
    broken = types.SimpleNamespace(code=code)
    with pytest.raises(jinja2.UndefinedError) as direct:
        codegen.render_source(broken)
    helper = GenHelper.start()
    try:
        helper.submit(broken)
        with pytest.raises(jinja2.UndefinedError) as via_helper:
            helper.result()
    finally:
        helper.close()
    assert str(via_helper.value) == str(direct.value)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this OS")
def test_close_before_submit_ends_and_reaps_the_helper():
    helper = GenHelper.start()
    pid = helper._pid
    helper.close()
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # already reaped: no zombie left behind


def _many_ops(tmp_path, n=70, bad=(), kernel_type="KERNEL_TYPE_AIC_ONLY", chip="c220"):
    """kernel_infos of n ops over three kernels; op_list[i] for i in `bad` gets a negative stream_id."""
    path = write_scenario(tmp_path, [(f"k{i % 3}", {"kernel_type": kernel_type}, {}) for i in range(n)],
                          options="split-mode=4", chip=chip)
    doc, base_dir = subop.read_kernel_infos(path)
    for i in bad:
        doc["op_list"][i]["stream_id"] = -1
    return path, doc, base_dir


def _helpers_share(tmp_path, bad=(), platform=None, **kw):
    """(the helper's entries, base_dir, cut, what load_ops makes of them here or the SkError it raises)."""
    _, doc, base_dir = _many_ops(tmp_path, bad=bad, **kw)
    cut = helper_share(len(doc["op_list"]))
    entries = doc["op_list"][cut:]
    try:
        expected = subop.load_ops(entries, base_dir, cut, platform=platform or get_platform())
    except SkError as err:
        expected = err
    return entries, base_dir, cut, expected


def test_the_helper_takes_a_share_of_large_sks_only():
    assert helper_share(10) == 10 and helper_share(63) == 63
    assert helper_share(70) == 31 and helper_share(1200) == 540


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this OS: the ops load in-process")
def test_the_helper_loads_its_share_as_load_ops_does(tmp_path):
    entries, base_dir, cut, expected = _helpers_share(tmp_path)
    helper = GenHelper.start(entries, base_dir, cut)
    try:
        assert helper._pid is not None
        ops = helper.loaded()
    finally:
        helper.close()
    assert ops == expected and [op.index for op in ops] == list(range(cut, 70))
    # The objects behind them came along too (the split-copy check reads them).
    assert all(op._objects.get(op.funcs[0]._path, "x").defines(op.funcs[0].func_name) for op in ops)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this OS: the ops load in-process")
def test_the_helper_loads_for_the_superkernels_platform(tmp_path):
    # MIX ops keyed for c310 load on an Ascend950 SuperKernel's helper, and only there.
    c310 = get_platform("Ascend950PR_9579")
    entries, base_dir, cut, expected = _helpers_share(tmp_path, platform=c310, kernel_type="KERNEL_TYPE_MIX_AIC_1_1",
                                                      chip="c310")
    for platform, loads in ((c310, True), (None, False)):
        helper = GenHelper.start(entries, base_dir, cut, platform=platform)
        try:
            if loads:
                assert helper.loaded() == expected
            else:
                with pytest.raises(SkError, match="keyed for another chip"):
                    helper.loaded()
        finally:
            helper.close()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this OS")
def test_a_user_error_in_the_helpers_share_is_raised_as_if_loaded_here(tmp_path):
    entries, base_dir, cut, here = _helpers_share(tmp_path, bad=(66,))
    helper = GenHelper.start(entries, base_dir, cut)
    try:
        with pytest.raises(SkError) as there:
            helper.loaded()
    finally:
        helper.close()
    assert isinstance(here, SkError) and there.value.paragraph() == here.paragraph() and "op_list[66]" in str(there.value)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this OS")
def test_a_dead_helper_leaves_the_work_to_sk_gen(tmp_path, split_infos):
    entries, base_dir, cut, expected = _helpers_share(tmp_path)
    helper = GenHelper.start(entries, base_dir, cut)
    try:
        os.kill(helper._pid, 9)
        ops = helper.loaded()
        helper.submit(plan_from(split_infos))
        text = helper.result()
    finally:
        helper.close()
    assert ops == expected
    assert text == codegen.render_source(plan_from(split_infos))


@pytest.mark.parametrize("bad, named", [((3, 66), "op_list[3]"), ((66,), "op_list[66]"), ((), None)])
def test_sk_gen_reports_the_first_bad_op_whichever_process_read_it(tmp_path, capsys, bad, named):
    path, doc, _ = _many_ops(tmp_path, bad=bad)
    with open(path, "w") as f:
        json.dump(doc, f)
    code = cli.main(["gen", "--kernel-infos", path, "--out-dir", str(tmp_path / "out")])
    err = capsys.readouterr().err
    if named is None:
        assert code == 0 and err == ""
        with open(tmp_path / "out" / "te_superkernel_t_kernel.cpp") as f:
            assert f.read() == codegen.render_source(plan_from(path))
    else:
        assert code == 2 and named in err and "stream_id" in err and err.count("error") == 1


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this OS")
def test_the_source_comes_back_through_an_anonymous_file_that_never_has_a_name(tmp_path, split_plan):
    plan = split_plan
    tmp_path = tmp_path / "out"
    tmp_path.mkdir()
    helper = GenHelper.start(out_dir=str(tmp_path))
    try:
        helper.submit(plan)
        text = helper.result()
    finally:
        helper.close()
    assert text == codegen.render_source(plan) and os.listdir(tmp_path) == []
    # As a file for write_files_atomic to name.
    helper = GenHelper.start(out_dir=str(tmp_path))
    try:
        helper.submit(plan)
        written = helper.result(as_file=True)
    finally:
        helper.close()
    assert written.fd is not None and os.listdir(tmp_path) == []
    write_files_atomic({str(tmp_path / "k.cpp"): written})
    assert (tmp_path / "k.cpp").read_text() == text
    (tmp_path / "k.cpp").unlink()
    # Abandoned after submit (sk gen failed or was killed meanwhile): what the helper wrote has no name.
    helper = GenHelper.start(out_dir=str(tmp_path))
    helper.submit(plan)
    os.waitpid(helper._pid, 0)  # the helper has written the file and exited
    helper._pid = None
    helper.close()
    assert os.listdir(tmp_path) == []
