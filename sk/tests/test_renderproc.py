"""The forked renderer gives render_source's text, and render_source's error when rendering fails."""

import copy
import os
import types

import jinja2
import pytest

from sk import codegen
from sk.plan import build_plan
from sk.platforms import get_platform
from sk.renderproc import Renderer
from sk.subop import load_kernel_infos
from sk.tests.scenario import write_scenario

OPS = [("a", {"kernel_type": "KERNEL_TYPE_AIC_ONLY"}, {}), ("b", {"kernel_type": "KERNEL_TYPE_MIX_AIC_1_2"}, {})]


def _plan(tmp_path):
    return build_plan(load_kernel_infos(write_scenario(tmp_path, OPS, options="split-mode=4")), get_platform())


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this OS: the renderer works in-process")
def test_forked_helper_renders_the_same_text(tmp_path):
    plan = _plan(tmp_path)
    renderer = Renderer.start()
    try:
        assert renderer._pid is not None  # really a helper process
        renderer.submit(plan)
        text = renderer.result()
    finally:
        renderer.close()
    assert text == codegen.render_source(plan)


def test_in_process_renderer_renders_the_same_text(tmp_path):
    plan = _plan(tmp_path)
    renderer = Renderer()
    renderer.submit(plan)
    assert renderer.result() == codegen.render_source(plan)


def test_a_failing_render_raises_here_as_render_source_does(tmp_path):
    code = copy.deepcopy(_plan(tmp_path).code)
    code["entry"]["body"].append({"kind": "no_such_step"})
    broken = types.SimpleNamespace(code=code)
    with pytest.raises(jinja2.UndefinedError) as direct:
        codegen.render_source(broken)
    renderer = Renderer.start()
    try:
        renderer.submit(broken)
        with pytest.raises(jinja2.UndefinedError) as via_helper:
            renderer.result()
    finally:
        renderer.close()
    assert str(via_helper.value) == str(direct.value)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this OS")
def test_close_before_submit_ends_and_reaps_the_helper():
    renderer = Renderer.start()
    pid = renderer._pid
    renderer.close()
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # already reaped: no zombie left behind
