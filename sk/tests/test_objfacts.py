"""sk/binfmt/objfacts.py: the facts packed archives carry, and the engine and the link reading the same member
of an archive (duplicate names, BSD names) through the one ar reader."""

import json
import os
import pickle
import shutil
import subprocess

import pytest

from sk.binfmt import ar, objfacts
from sk.toolflow import linkprep
from sk.engine.subop import load_kernel_infos
from sk.tests.objfactory import make_archive, make_object
from sk.tests.scenario import write_scenario


def _facts_archive(tmp_path):
    a = make_object(tmp_path / "k.o", ["k_middle", "helper"], text_size=4096)
    b = make_object(tmp_path / "k_split1.o", ["k_middle_split1"], text_size=4096)
    path = make_archive(tmp_path / "k.a", [a, b])
    with open(path, "rb") as f:
        return f.read()


def _answers(info):
    return info.defined_functions, info.defined_symbols, info.text_size


def test_archive_facts_give_what_parsing_gives(tmp_path):
    data = _facts_archive(tmp_path)
    facts = objfacts.archive_facts(data, "k.a")
    assert list(facts["members"]) == ["k.o", "k_split1.o"]
    known = objfacts.objects_from_facts(facts, data)
    parsed = {m: objfacts.object_info(body, m) for m, body in ar.members(data, "k.a")}
    assert {m: _answers(i) for m, i in known.items()} == {m: _answers(i) for m, i in parsed.items()}
    assert known["k.o"].defined_functions == ("helper", "k_middle") and known["k.o"].text_size == 4096
    with pytest.raises(RuntimeError, match="archive facts"):
        known["k.o"].defined_globals()  # the facts hold the engine's answers only


def test_archive_facts_are_json_round_trip_safe(tmp_path):
    data = _facts_archive(tmp_path)
    facts = json.loads(json.dumps(objfacts.archive_facts(data, "k.a")))
    again = objfacts.objects_from_facts(objfacts.archive_facts(data, "k.a"), data)
    assert {m: _answers(i) for m, i in objfacts.objects_from_facts(facts, data).items()} == \
        {m: _answers(i) for m, i in again.items()}


def test_objects_cross_processes_as_the_engines_answers(tmp_path):
    """`sk gen`'s helper pickles SubOps with their objects: the answers cross, not the ELF bytes."""
    info = objfacts.read_object(make_object(tmp_path / "k.o", ["k_middle"], text_size=100), name="k.o")
    text = pickle.dumps(info, protocol=pickle.HIGHEST_PROTOCOL)
    assert len(text) < 200 and _answers(pickle.loads(text)) == _answers(info) == (("k_middle",),) * 2 + (100,)


@pytest.mark.parametrize("spoil", ["bytes", "format", "sha", "members", "member", "list", "size", "bool_size",
                                   "not_dict"])
def test_facts_that_do_not_describe_the_bytes_are_ignored(tmp_path, spoil):
    data = _facts_archive(tmp_path)
    facts = objfacts.archive_facts(data, "k.a")
    if spoil == "bytes":
        data = data[:-1] + bytes([data[-1] ^ 1])
    elif spoil == "format":
        facts["format"] = objfacts.FACTS_FORMAT + 1
    elif spoil == "sha":
        facts["sha256"] = "0" * 64
    elif spoil == "members":
        facts["members"] = ["k.o"]
    elif spoil == "member":
        facts["members"]["k.o"] = "k_middle"
    elif spoil == "list":
        facts["members"]["k.o"]["symbols"] = "k_middle"
    elif spoil == "size":
        facts["members"]["k.o"]["text_size"] = "4096"
    elif spoil == "bool_size":
        facts["members"]["k.o"]["text_size"] = True
    else:
        facts = "facts"
    assert objfacts.objects_from_facts(facts, data) is None


# ------------------------------------------------ one member per name for the engine and the link

def _scenario_with_archive(tmp_path, pack):
    """A one-op fusion input whose bin_path is the archive pack(archive path, member paths) writes."""
    infos = write_scenario(tmp_path, [("a", {}, {})], split=2)
    members = [tmp_path / "a.o", tmp_path / "a_split1.o"]
    lib = tmp_path / "a.a"
    pack(lib, members)
    for m in members:  # the engine must read them from the archive
        os.rename(m, str(m) + ".gone")
    doc = json.loads(open(infos).read())
    doc["op_list"][0]["bin_path"] = "a.a"
    open(infos, "w").write(json.dumps(doc))
    return infos, lib


def _engine_text_size(infos):
    op = load_kernel_infos(infos).ops[0]
    op.check_split_copies(2)
    return op.funcs[0].text_size


def _linked_bytes(lib, member):
    """What the link writes for `member` of `lib` (sk/toolflow/linkprep.py) and whether ld gets the whole archive."""
    cache = linkprep.ArchiveCache()
    inputs = [linkprep.LinkInput(f"a.a({m})", str(lib), m) for m in ("a.o", "a_split1.o")]
    whole = linkprep.whole_archive_runs(inputs, cache)
    return cache.get(next(i for i in inputs if i.member == member)), whole


def test_duplicate_member_names_engine_and_link_read_the_same_first_member(tmp_path):
    first_size, second_size = 4080, 64

    def pack(lib, members):
        os.makedirs(tmp_path / "other")
        other = make_object(tmp_path / "other" / "a.o", ["a__kernel0_middle"], second_size)
        for path in (members[0], other, members[1]):  # `ar q` keeps the second a.o
            subprocess.run(["ar", "q", str(lib), str(path)], check=True)

    infos, lib = _scenario_with_archive(tmp_path, pack)
    assert ar.member_names(str(lib)) == ["a.o", "a.o", "a_split1.o"]
    first = open(tmp_path / "a.o.gone", "rb").read()
    assert _engine_text_size(infos) == first_size  # the first a.o, not the second (64)
    data, whole = _linked_bytes(lib, "a.o")
    assert data == first and whole == {}  # ld never gets the archive whole: it would link both a.o
    facts = objfacts.archive_facts(lib.read_bytes(), "a.a")
    assert facts["members"]["a.o"]["text_size"] == first_size


def test_bsd_archive_names_on_the_engine_and_the_link_paths(tmp_path):
    if not shutil.which("llvm-ar"):
        pytest.skip("needs llvm-ar (for --format=bsd) on PATH")

    def pack(lib, members):
        subprocess.run(["llvm-ar", "rcs", "--format=bsd", str(lib), *map(str, members)], check=True)

    infos, lib = _scenario_with_archive(tmp_path, pack)
    assert b"#1/" in lib.read_bytes()
    assert _engine_text_size(infos) == 4080
    data, whole = _linked_bytes(lib, "a_split1.o")
    assert data == open(tmp_path / "a_split1.o.gone", "rb").read()
    assert whole == {0: 2}  # the plan's members, in order: ld takes the archive whole
    facts = objfacts.archive_facts(lib.read_bytes(), "a.a")
    assert sorted(facts["members"]) == ["a.o", "a_split1.o"]
