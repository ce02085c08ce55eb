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
])
def test_errors_name_the_json_path(tmp_path, mutate, where):
    doc = base()
    mutate(doc)
    with pytest.raises(SkError) as err:
        model.load(write(tmp_path, doc))
    assert where in str(err.value)
