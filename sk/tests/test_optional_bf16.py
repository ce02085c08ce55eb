"""Absent optional parameters of CANN operators and bfloat16 tensors in sk_model's data file.

bfloat16 values are checked against bit patterns worked out by hand (sign, 8 exponent bits, 7 fraction
bits) and against numpy's float32 view of the bits; an absent optional parameter against the binary
config's null / "paramType": "optional" entries.
"""

import json
import struct

import numpy as np
import pytest

from sk.base.errors import SkError
from sk.binfmt import bfloat16
from sk.twin import model as model_mod
from sk.twin import reference

# value -> its bfloat16 bits, by hand: 1.0 = 0 01111111 0000000; 1 + 2**-7 is the next one up.
HAND = [(1.0, 0x3F80), (-2.0, 0xC000), (0.5, 0x3F00), (1.0078125, 0x3F81), (3.140625, 0x4049), (0.0, 0x0000),
        (-0.0, 0x8000), (float("inf"), 0x7F80), (2.0 ** -133, 0x0001)]


@pytest.mark.parametrize("value,bits", HAND)
def test_bfloat16_bits_both_ways(value, bits):
    assert bfloat16.from_float(value) == bits
    got = bfloat16.to_float(bits)
    assert got == value and str(got)[0] == str(value)[0]  # -0.0 keeps its sign


def test_bfloat16_rounds_to_nearest_even():
    assert bfloat16.from_float(1.0 + 2 ** -8) == 0x3F80        # tie: down to the even 0x3F80
    assert bfloat16.from_float(1.0 + 3 * 2 ** -8) == 0x3F82    # tie: up to the even 0x3F82
    assert bfloat16.from_float(1.0 + 2 ** -8 + 2 ** -20) == 0x3F81  # above the tie
    assert bfloat16.from_float(3.14159265) == 0x4049
    nan = bfloat16.from_float(float("nan"))
    assert nan & 0x7F80 == 0x7F80 and nan & 0x7F


def test_bfloat16_widening_equals_numpys_float32_view():
    bits = np.arange(0, 1 << 16, 7, dtype=np.uint32)
    want = (bits << 16).view(np.float32)
    got = bfloat16.unpack(bits.astype("<u2").tobytes())
    finite = np.isfinite(want)
    assert np.array_equal(np.array(got, np.float32)[finite], want[finite])
    assert np.isnan(np.array(got)[np.isnan(want)]).all()


def _model(tmp_path, tensors, bind=None, kernel=None, binary=None):
    (tmp_path / "k.cpp").write_text("")
    k = {"src": "k.cpp", "kernel_type": "AIV_ONLY", "block_dim": 1, "inputs": ["x", "bias"], "outputs": ["y"]}
    if binary is not None:
        (tmp_path / "op_binary.json").write_text(json.dumps(binary))
        k.update(cann_kernel="op", binary_config="op_binary.json", variant="0")
    k.update(kernel or {})
    doc = {"name": "m", "tensors": tensors, "kernels": {"k": k},
           "ops": [{"name": "op1", "kernel": "k", "bind": bind or {"x": "x", "bias": "b", "y": "y"}}]}
    return model_mod.from_dict(doc, str(tmp_path / "model.json"))


def test_bfloat16_tensors_from_files_compared_and_written(tmp_path):
    bits = np.array([0x3F80, 0xC000, 0x4049, 0x3F81], np.uint16)  # 1, -2, 3.140625, 1.0078125
    np.save(tmp_path / "x.npy", bits)
    (tmp_path / "x.bin").write_bytes(bits.tobytes())
    np.save(tmp_path / "y_bits.npy", bits)
    np.save(tmp_path / "y_f32.npy", np.array([1.0, -2.0, 3.14159, 1.0078125], np.float32))
    m = _model(tmp_path, {"x": {"dtype": "bfloat16", "shape": [4], "file": "x.npy"},
                          "b": {"dtype": "bfloat16", "shape": [4], "file": "x.bin"},
                          "y": {"dtype": "bfloat16", "shape": [4], "expected": "y_f32.npy"},
                          "yb": {"dtype": "bfloat16", "shape": [4], "expected": "y_bits.npy", "atol": 0, "rtol": 0},
                          "o": {"dtype": "bfloat16", "shape": [3], "init": "ones"}})
    assert m.tensors["x"].initial_bytes(0) == bits.tobytes() == m.tensors["b"].initial_bytes(0)
    assert m.tensors["o"].initial_bytes(0) == struct.pack("<3H", 0x3F80, 0x3F80, 0x3F80)
    y = m.tensors["y"]
    assert y.tolerance == (1e-2, 1e-3)
    # The float32 reference is compared unrounded: 3.140625 is within 1e-2 of 3.14159.
    assert reference.compare(y, bits.tobytes(), "fused run") is None
    off = bits.copy()
    off[2] = 0x404C  # 3.1875: 0.046 away from 3.14159, outside 1e-3 + 1e-2 * 3.14159
    mm = reference.compare(y, off.tobytes(), "fused run")
    assert (mm.index, mm.got, mm.want, mm.bad) == ((2,), 3.1875, float(np.float32(3.14159)), 1)
    # Bits against bits, exactly: one fraction bit apart is a miss.
    assert reference.compare(m.tensors["yb"], bits.tobytes(), "separate run") is None
    one_ulp = bits.copy()
    one_ulp[0] = 0x3F81
    mm = reference.compare(m.tensors["yb"], one_ulp.tobytes(), "separate run")
    assert (mm.index, mm.got, mm.want) == ((0,), 1.0078125, 1.0)
    out = reference.write_outputs(m, {"fused": {"y": off.tobytes()}}, str(tmp_path / "out"))
    back = np.load(out[0])
    assert back.dtype == np.uint16 and back.tolist() == off.tolist()
    rnd = np.frombuffer(m.tensors["b"].initial_bytes(0), np.uint16)  # from the file, not random
    assert rnd.tolist() == bits.tolist()


def test_bfloat16_random_values_are_bfloat16_in_range(tmp_path):
    m = _model(tmp_path, {"x": {"dtype": "bfloat16", "shape": [64]}, "b": {"dtype": "bfloat16", "shape": [64]},
                          "y": {"dtype": "bfloat16", "shape": [64]}})
    vals = (np.frombuffer(m.tensors["x"].initial_bytes(3), np.uint16).astype(np.uint32) << 16).view(np.float32)
    assert np.all(np.abs(vals) <= 4.0) and len(set(vals.tolist())) > 32


@pytest.mark.parametrize("content,field,message", [
    (lambda p: np.save(p, np.zeros(4, np.float32)), "file", r"(?i)holds float32 \[4\], the tensor is bfloat16 \[4\].*"
                                                            r"an \.npy of uint16 with shape \[4\] \(bfloat16 bit"),
    (lambda p: np.save(p, np.zeros(4, np.float16)), "expected", r"(?i)holds float16 \[4\].*an \.npy of uint16 or an "
                                                                r"\.npy of float32"),
    (lambda p: np.save(p, np.zeros(3, np.uint16)), "file", r"holds uint16 \[3\], the tensor is bfloat16 \[4\]"),
])
def test_bad_bfloat16_files_are_refused(tmp_path, content, field, message):
    content(str(tmp_path / "f.npy"))
    m = _model(tmp_path, {"x": {"dtype": "bfloat16", "shape": [4], field: "f.npy"},
                          "b": {"dtype": "bfloat16", "shape": [4]}, "y": {"dtype": "bfloat16", "shape": [4]}})
    with pytest.raises(SkError, match=message):
        if field == "file":
            m.tensors["x"].initial_bytes(0)
        else:
            reference.compare(m.tensors["x"], bytes(8), "fused run")


def test_bfloat16_tiling_values_are_rounded_bits(tmp_path):
    (tmp_path / "k.cpp").write_text("")
    doc = {"name": "m", "tensors": {"x": {"dtype": "float32", "shape": [2]}},
           "kernels": {"k": {"src": "k.cpp", "kernel_type": "AIV_ONLY", "block_dim": 1, "inputs": ["x"],
                             "outputs": [], "tiling": True}},
           "ops": [{"kernel": "k", "bind": {"x": "x"}, "tiling": {"dtype": "bfloat16", "values": [1, -2, 3.14159]}}]}
    m = model_mod.from_dict(doc, str(tmp_path / "model.json"))
    assert m.ops[0].tiling == struct.pack("<3H", 0x3F80, 0xC000, 0x4049)


# ------------------------------------------------------------ absent optional parameters

def _p(name, dtype="float16", param_type=None):
    doc = {"name": name, "dtype": dtype, "format": "ND"}
    if param_type:
        doc["paramType"] = param_type
    return doc


F16 = {"x": {"dtype": "float16", "shape": [8]}, "b": {"dtype": "float16", "shape": [8]},
       "y": {"dtype": "float16", "shape": [8]}}


@pytest.mark.parametrize("bias", [None, _p("bias", param_type="optional")])
def test_an_optional_parameter_may_be_absent(tmp_path, bias):
    """null in the variant (the ADK skips it) or "paramType": "optional": the op binds it to null, and the
    launch gets a null GM pointer in its slot, the other tensors in theirs."""
    binary = {"op_list": [{"bin_filename": "Op_0", "inputs": [_p("x"), bias], "outputs": [_p("y")]}]}
    m = _model(tmp_path, F16, bind={"x": "x", "bias": None, "y": "y"}, binary=binary)
    op = m.ops[0]
    assert op.bind["bias"] is None and m.output_tensors() == ["y"]
    from sk.twin import run

    assert run.op_tensors(op) == {"reads": ["x"], "writes": ["y"]}

    class Buf:
        def __init__(self, address):
            self.address = address

    mem = run.Memory.__new__(run.Memory)
    mem.tensors = {"x": Buf(0x1000), "b": Buf(0x2000), "y": Buf(0x3000)}
    assert mem.op_params(op) == [0x1000, 0, 0x3000]


@pytest.mark.parametrize("bias,message", [
    (_p("bias", param_type="required"), r"op op1: parameter 'bias' is required by binary variant 0 \(Op_0\) of k "
                                        r"\(its 'bias' is not optional\), so it cannot be left out"),
    (_p("bias"), r"op op1: parameter 'bias' is required"),
])
def test_a_required_parameter_cannot_be_absent(tmp_path, bias, message):
    binary = {"op_list": [{"bin_filename": "Op_0", "inputs": [_p("x"), bias], "outputs": [_p("y")]}]}
    with pytest.raises(SkError, match=message) as err:
        _model(tmp_path, F16, bind={"x": "x", "bias": None, "y": "y"}, binary=binary)
    assert "ops[0].bind.bias" in str(err.value)


def test_only_a_cann_operator_has_optional_parameters(tmp_path):
    with pytest.raises(SkError, match=r"op op1: parameter 'bias' of k is left out \(bound to null\), but only a "
                                      r"CANN operator's binary variant"):
        _model(tmp_path, F16, bind={"x": "x", "bias": None, "y": "y"})
