"""Model descriptions: defaults, seeded inputs, and errors that name the JSON path."""

import json

import pytest

from sk.twin import model
from sk.base.errors import SkError


def write(tmp_path, doc):
    (tmp_path / "k.cpp").write_text("// kernel\n")
    path = tmp_path / "m.json"
    path.write_text(json.dumps(doc))
    return str(path)


def base():
    return {
        "name": "m",
        "tensors": {"x": {"dtype": "float32", "shape": [4]}, "y": {"dtype": "int32", "shape": [2, 2]},
                    "z": {"dtype": "float32", "shape": [4]}},
        "kernels": {"k": {"src": "k.cpp", "kernel_type": "AIV_ONLY", "block_dim": 2, "inputs": ["a", "b"],
                          "outputs": ["c"], "workspace": True}},
        "ops": [{"name": "o1", "kernel": "k", "bind": {"a": "x", "b": "y", "c": "z"}},
                {"name": "o2", "kernel": "k", "bind": {"a": "z", "b": "y", "c": "x"}, "workspace_bytes": 64}],
        "super_kernels": [{"name": "sk1", "ops": ["o1", "o2"], "options": "split-mode=2"}],
    }


def test_defaults_and_parameter_order(tmp_path):
    m = model.load(write(tmp_path, base()))
    assert m.tensors["y"].init == "random" and m.tensors["z"].init == "zeros"
    assert m.kernels["k"].params == ("a", "b", "c", "workspace")
    assert m.kernels["k"].kernel_type == "KERNEL_TYPE_AIV_ONLY"
    assert [op.workspace_bytes for op in m.ops] == [model.DEFAULT_WORKSPACE_BYTES, 64]
    assert m.scopes[0].ops == (0, 1) and m.scope_of(1).name == "sk1"
    assert m.output_tensors() == ["x", "z"]


def test_inputs_are_seeded_and_independent_of_other_tensors(tmp_path):
    m = model.load(write(tmp_path, base()))
    y = m.tensors["y"]
    assert y.initial_bytes(7) == y.initial_bytes(7)
    assert y.initial_bytes(7) != y.initial_bytes(8)
    assert len(m.tensors["x"].initial_bytes(1)) == 16


@pytest.mark.parametrize("mutate, where", [
    (lambda d: d["ops"][0]["bind"].pop("c"), "ops[0].bind.c"),
    (lambda d: d["ops"][0]["bind"].update(c="nope"), "ops[0].bind.c"),
    (lambda d: d["kernels"]["k"].update(kernel_type="VECTOR"), "kernels.k.kernel_type"),
    (lambda d: d["tensors"]["x"].update(dtype="bf17"), "tensors.x.dtype"),
    (lambda d: d["super_kernels"].append({"name": "sk2", "ops": ["o1"]}), "super_kernels[1].ops"),
    (lambda d: d["ops"].append({"name": "o3", "kernel": "k", "bind": {"a": "x", "b": "y", "c": "z"}})
     or d["super_kernels"][0].update(ops=["o1", "o3"]), "super_kernels[0].ops"),
    (lambda d: d["ops"][1].update(tiling={"dtype": "int32", "values": [1]}), "ops[1].tiling"),
    (lambda d: d.update(extra=1), "m.json.extra"),
    (lambda d: d["ops"][1].update(stream=-1), "ops[1].stream"),
    (lambda d: d["ops"][0].update(send_events=[1, 1]), "ops[0].send_events"),
    (lambda d: d["ops"][0].update(recv_events="7"), "ops[0].recv_events"),
])
def test_errors_name_the_json_path(tmp_path, mutate, where):
    doc = base()
    mutate(doc)
    with pytest.raises(SkError) as err:
        model.load(write(tmp_path, doc))
    assert where in str(err.value)


# ------------------------------------------------------------ declared in BUILD (sk_model's manifest)

def build_section():
    """What sk_model writes for base()'s model, kernel tiled, sources relative to the manifest."""
    return {
        "name": "compare", "data": "m.json",
        "kernels": {"k": {"src": "k.cpp", "entry": "k", "kernel_type": "KERNEL_TYPE_AIV_ONLY", "block_dim": 2,
                          "inputs": ["a", "b"], "outputs": ["c"], "output_shape": False, "workspace": True,
                          "tiling": True, "op_type": "", "copts": [], "label": "//m:k"}},
        "ops": [{"name": "o1", "kernel": "k", "bind": {"a": "x", "b": "y", "c": "z"}, "workspace_bytes": 256,
                 "label": "//m:o1", "stream": 0, "send_events": [3], "recv_events": []},
                {"name": "o2", "kernel": "k", "bind": {"a": "z", "b": "y", "c": "x"}, "workspace_bytes": 256,
                 "label": "//m:o2", "stream": 1, "send_events": [], "recv_events": [3]}],
        "super_kernels": [{"name": "sk1", "ops": ["o1", "o2"], "options": "split-mode=2", "label": "//m:sk1"}],
    }


def tiling(name, *values):
    return {"name": name, "tiling": {"dtype": "int32", "values": list(values)}}


def test_build_model_takes_tensors_and_tiling_from_the_data_file(tmp_path):
    doc = {"tensors": base()["tensors"], "ops": [tiling("o1", 1, 2), dict(tiling("o2", 3), workspace_bytes=64)]}
    m = model.from_build(build_section(), str(tmp_path), write(tmp_path, doc))
    assert m.kernels["k"].params == ("a", "b", "c", "workspace", "tiling")
    assert [op.tiling for op in m.ops] == [b"\1\0\0\0\2\0\0\0", b"\3\0\0\0"]
    assert [op.workspace_bytes for op in m.ops] == [256, 64]
    assert m.scopes[0].options == "split-mode=2" and m.name == "compare"
    assert [(op.stream, op.send_events, op.recv_events) for op in m.ops] == [(0, (3,), ()), (1, (), (3,))]


def test_a_self_contained_model_that_agrees_with_build_runs(tmp_path):
    doc = base()
    doc["kernels"]["k"]["tiling"] = True
    doc["ops"][0]["tiling"] = {"dtype": "int32", "values": [1]}
    doc["ops"][1]["tiling"] = {"dtype": "int32", "values": [2]}
    doc["super_kernels"][0]["options"] = "split-mode=2:"  # the same options, written differently
    m = model.from_build(build_section(), str(tmp_path), write(tmp_path, doc))
    assert [op.name for op in m.ops] == ["o1", "o2"]


def test_a_self_contained_data_file_agrees_with_build_from_a_build_action(tmp_path):
    # As SkModel runs it: the manifest under bazel-out, its paths relative to it as in the runfiles tree
    # (where the source root and bazel-bin are one), the data file and kernel source under the source root.
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    doc = base()
    doc["kernels"]["k"]["tiling"] = True
    for op in doc["ops"]:
        op["tiling"] = {"dtype": "int32", "values": [1]}
    data = write(pkg, doc)
    manifest_dir = tmp_path / "bazel-out" / "bin" / "pkg" / "_sk_model" / "compare"
    manifest_dir.mkdir(parents=True)
    section = build_section()
    section["data"] = "../../m.json"
    section["kernels"]["k"]["src"] = "../../k.cpp"
    m = model.from_build(section, str(manifest_dir), data)
    assert [op.name for op in m.ops] == ["o1", "o2"]
    doc["kernels"]["k"]["src"] = "other.cpp"
    with pytest.raises(SkError, match="kernels.k.src"):
        model.from_build(section, str(manifest_dir), write(pkg, doc))


@pytest.mark.parametrize("change, where", [
    (lambda d: d["ops"][1]["bind"].update(a="y"), "ops[1].bind.a"),
    (lambda d: d["ops"][0].update(kernel="k2"), "ops[0].kernel"),
    (lambda d: d["super_kernels"][0].update(options="split-mode=4"), "super_kernels[0].options"),
    (lambda d: d["kernels"]["k"].update(block_dim=4), "kernels.k.block_dim"),
    (lambda d: d["kernels"]["k"].update(src="other.cpp"), "kernels.k.src"),
    (lambda d: d["ops"].reverse(), "ops[0].name"),
    (lambda d: d["ops"][1].update(stream=0), "ops[1].stream"),
    (lambda d: d["ops"][0].update(send_events=[4]), "ops[0].send_events"),
])
def test_a_data_file_that_contradicts_build_names_the_field(tmp_path, change, where):
    doc = base()
    doc["kernels"]["k"]["tiling"] = True
    for op in doc["ops"]:
        op["tiling"] = {"dtype": "int32", "values": [1]}
    change(doc)
    with pytest.raises(SkError, match="disagree") as err:
        model.from_build(build_section(), str(tmp_path), write(tmp_path, doc))
    assert where in str(err.value)


def test_a_tiled_op_without_tiling_values_is_an_error(tmp_path):
    with pytest.raises(SkError, match="takes a tiling parameter") as err:
        model.from_build(build_section(), str(tmp_path), write(tmp_path, {"tensors": base()["tensors"],
                                                                           "ops": [tiling("o1", 1)]}))
    assert "o2" in str(err.value)


def test_sk_model_writes_the_build_model_as_one_model_file(tmp_path):
    from sk.tests.harness import run_sk

    (tmp_path / "kernels").mkdir()
    (tmp_path / "kernels" / "k.cpp").write_text("// kernel\n")
    section = dict(build_section(), kernels={"k": dict(build_section()["kernels"]["k"], src="../kernels/k.cpp")})
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "manifest.json").write_text(json.dumps({"build": section}))
    data = {"tensors": base()["tensors"], "ops": [tiling("o1", 1, 2), dict(tiling("o2", 3), workspace_bytes=64)]}
    (tmp_path / "data.json").write_text(json.dumps(data))
    out = tmp_path / "model" / "model.json"
    out.parent.mkdir()
    res = run_sk("model", "--built", tmp_path / "out" / "manifest.json", "--data", tmp_path / "data.json", "-o", out)
    assert res.returncode == 0, res.stderr
    written = json.loads(out.read_text())
    assert written["kernels"]["k"]["src"] == "../kernels/k.cpp"
    # Streams and events as BUILD's sk_op says them, defaults left out.
    assert [{f: o.get(f) for f in ("stream", "send_events", "recv_events")} for o in written["ops"]] == [
        {"stream": None, "send_events": [3], "recv_events": None},
        {"stream": 1, "send_events": None, "recv_events": [3]}]
    m = model.load(str(out))  # self-contained: its kernel source is found from the file
    want = model.from_build(section, str(tmp_path / "out"), str(tmp_path / "data.json"))
    assert (m.kernels, m.ops, m.scopes, m.tensors) == (want.kernels, want.ops, want.scopes, want.tensors)


def test_sk_model_without_a_build_section_says_so(tmp_path):
    from sk.tests.harness import run_sk

    (tmp_path / "manifest.json").write_text(json.dumps({"runtime": "x.so"}))
    res = run_sk("model", "--built", tmp_path / "manifest.json", "--data", write(tmp_path, base()),
                 "-o", tmp_path / "o.json")
    assert res.returncode == 2 and "no `build` section" in res.stderr and "Traceback" not in res.stderr
    assert not (tmp_path / "o.json").exists()
