"""jsontext.dumps writes exactly what json.dumps(indent=...) writes."""

import json
import math

from hypothesis import given, settings
from hypothesis import strategies as st

from sk.base import jsontext

SCALARS = (st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True, allow_infinity=True)
           | st.text())
DOCS = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
                    max_leaves=30)


@settings(max_examples=300, deadline=None)
@given(DOCS)
def test_same_text_as_json_dumps(doc):
    assert jsontext.dumps(doc) == json.dumps(doc, indent=2)
    assert jsontext.dumps(doc, indent=1) == json.dumps(doc, indent=1)


def test_the_cases_json_spells_itself_go_to_json():
    import enum

    class Level(enum.IntEnum):
        LOW = 1

    for doc in ({1: "int key"}, {"nan": math.nan}, [math.inf], {"e": Level.LOW}, {"t": ("a", ("b",))},
                {"": []}, [{}], "\u2028\"é", 10**40, -0.0, 5e-324):
        assert jsontext.dumps(doc) == json.dumps(doc, indent=2), doc


def test_a_kernel_json_shaped_document():
    doc = {"binFileName": "sk", "blockDim": 24, "memoryStamping": [], "SuperkernelInfo": {"kernelList": {
        "aicore": [{"func_name": f"op{i}", "split_mode": 4, "flag": False, "ev": [], "arg_list": {
            "param_offset": i, "notify_param_offset": None}} for i in range(3)]}}}
    assert jsontext.dumps(doc) == json.dumps(doc, indent=2)
