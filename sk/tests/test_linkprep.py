"""sk link's early `ld -r` (EarlyLink): the same bytes and the same errors as the checked link.

Real objects (GNU as), archives as `sk subkernel pack` writes them, real ld
and objcopy. Each case links once with the early start and once without.
"""

import json
import os
import re
import shutil
import subprocess
import time

import pytest

from sk.binfmt import ar
from sk.toolflow import link
from sk.toolflow import linkprep
from sk.engine import planfacts
from sk.toolflow import toolargv
from sk.base.errors import SkError

AS, LD, OBJCOPY = shutil.which("as"), shutil.which("ld"), shutil.which("objcopy")
pytestmark = pytest.mark.skipif(not (AS and LD and OBJCOPY), reason="needs GNU as, ld and objcopy on PATH")

META = {"kernelName": "sk", "sha256": "", "blockDim": 8}


def _tools(objcopy=None, linker=None):
    return toolargv.Tools("host", linker=linker or LD, objcopy=objcopy or OBJCOPY)


def assemble(path, source):
    src = f"{path}.s"
    with open(src, "w") as f:
        f.write(source)
    subprocess.run([AS, "--64", "-o", str(path), src], check=True)
    os.unlink(src)
    return str(path)


def _entry(path, name, calls):
    # Both halves define `shared_inline`: linked unlocalised, they would collide. Named after their
    # source, as a compiler names them (else ld names their locals after the file it was given).
    body = "".join(f"call {c}\n" for c in calls)
    return assemble(path, f".file \"sk_kernel.cpp\"\n.text\n.globl {name}\n.type {name}, @function\n{name}:\n{body}ret\n"
                          ".globl shared_inline\n.type shared_inline, @function\nshared_inline:\nret\n")


def _sub(path, func):
    return assemble(path, f".text\n.globl {func}\n.type {func}, @function\n{func}:\nret\n")


def _archive(tmp, name, funcs):
    """An archive of one object per function, named <func>.o, in the given order."""
    members = []
    for func in funcs:
        obj = _sub(tmp / f"{name}_{func}.o", func)
        with open(obj, "rb") as f:
            members.append((f"{func}.o", f.read()))
    path = tmp / f"{name}.a"
    path.write_bytes(ar.pack(members))
    return str(path)


def _item(op, func, derived=None):
    return planfacts.LinkItem("sub", "vec", op, f"{func}.o", func, derived)


def _entry_item(arch, name):
    return planfacts.LinkItem("sk_entry", arch, None, f"{name}.o", name, None)


def _plan(order, op_count):
    # Split-mode 1: these entry halves are single objects (at 2 each would be its split set, test_entrysplit).
    entries = (planfacts.EntryFacts("cube", "sk_mix_aic", "", "sk_mix_aic.o"),
               planfacts.EntryFacts("vec", "sk_mix_aiv", "", "sk_mix_aiv.o"))
    return planfacts.PlanFacts("sk", "KERNEL_TYPE_MIX_AIC_1_1", "1:1", 8, 1, entries, (), tuple(order), op_count, {})


@pytest.fixture
def kit(tmp_path):
    """Entry halves and two sub-kernel archives: op 0 = ka (+ split copy 1), op 1 = kb."""
    (tmp_path / "entry").mkdir()
    _entry(tmp_path / "entry" / "sk_mix_aic.o", "sk_mix_aic", ["ka", "ka_split1"])
    _entry(tmp_path / "entry" / "sk_mix_aiv.o", "sk_mix_aiv", ["kb", "kb_split1"])
    subs = [_archive(tmp_path, "op0", ["ka", "ka_split1"]), _archive(tmp_path, "op1", ["kb", "kb_split1"])]
    order = [_entry_item("cube", "sk_mix_aic"), _item(0, "ka"), _item(0, "ka_split1"),
             _entry_item("vec", "sk_mix_aiv"), _item(1, "kb"), _item(1, "kb_split1")]
    meta = tmp_path / "meta.json"
    meta.write_text(json.dumps(META))
    return tmp_path, subs, order


def _link(tmp, subs, order, early, *, meta=None, tools=None, tag=None):
    """(object bytes, JSON text, adopted?) of one link into its own output directory."""
    out = tmp / f"out_{tag or early}"
    adopted = []
    real_holds = linkprep.EarlyLink.holds

    def spy(self, cache):  # the real holds(), its answer noted
        adopted.append(real_holds(self, cache))
        return adopted[-1]

    linkprep.EarlyLink.holds = spy
    try:
        link.link_plan(tools or _tools(), _plan(order, len(subs)), entry_dirs=[str(tmp / "entry")], entry_objs=[],
                       sub_objs=subs, meta_in=str(meta or tmp / "meta.json"), out_obj=str(out / "sk.o"),
                       out_json=str(out / "sk.json"), early=early)
    finally:
        linkprep.EarlyLink.holds = real_holds
    return (out / "sk.o").read_bytes(), (out / "sk.json").read_text(), adopted


def _both(tmp, subs, order, **kw):
    early = _link(tmp, subs, order, True, **kw)
    checked = _link(tmp, subs, order, False, **kw)
    assert early[:2] == checked[:2]
    assert checked[2] == []
    return early


def test_the_early_ld_is_kept_and_writes_the_checked_links_bytes(kit):
    tmp, subs, order = kit
    obj, text, adopted = _both(tmp, subs, order)
    assert adopted == [True]
    assert json.loads(text)["sha256"] and b"sk_mix_aiv" in obj
    assert not [p for p in os.listdir(tmp) if p.startswith(".sk-")]


def test_entry_halves_localised_by_sk_entry_compile_are_linked_as_they_are_into_the_same_bytes(kit):
    tmp, subs, order = kit
    raw = _both(tmp, subs, order)
    for name in ("sk_mix_aic", "sk_mix_aiv"):  # what `sk entry compile --objcopy` does to each half
        path = tmp / "entry" / f"{name}.o"
        linkprep.localize_entry(_tools(), str(path), str(path) + ".tmp", name, label=name)
        os.replace(str(path) + ".tmp", path)
    items = [linkprep.LinkInput(f"entry {n}.o", str(tmp / "entry" / f"{n}.o"), entry_symbol=n)
             for n in ("sk_mix_aic", "sk_mix_aiv")]
    plan = linkprep.layout(_tools(), items, linkprep.ArchiveCache(), str(tmp / "work"), lambda: True)
    assert plan.jobs == () and plan.writes == () and plan.paths == tuple(i.path for i in items)
    assert _both(tmp, subs, order, tag="pre")[:2] == raw[:2]


def test_split_copies_made_by_objcopy_start_early_too(kit):
    tmp, subs, order = kit
    subs[1] = _archive(tmp, "op1_single", ["kb"])
    order[-1] = _item(1, "kb_split1", derived="kb.o")  # a copy of kb.o with kb renamed kb_split1
    order[-1] = order[-1]._replace(object_name="kb_split1.o")
    assert _both(tmp, subs, order)[2] == [True]


@pytest.mark.parametrize("case", ["other_order", "extra_member", "plain_object", "archive_twice"])
def test_archives_unlike_the_plan_fall_back_to_the_checked_layout(kit, case):
    """An archive that is not as assumed (the plan's members, in its order) stops the early ld."""
    tmp, subs, order = kit
    if case == "other_order":  # the plan's members, but not in its order: extracted one by one
        subs[0] = _archive(tmp, "op0_swapped", ["ka_split1", "ka"])
    elif case == "extra_member":  # --whole-archive would link the extra member too
        subs[0] = _archive(tmp, "op0_more", ["ka", "ka_split1", "kz"])
    elif case == "plain_object":  # a sub object that is no archive is linked as it is
        subs[1] = _sub(tmp / "kb_plain.o", "kb")
        order = order[:-1]
        _entry(tmp / "entry" / "sk_mix_aiv.o", "sk_mix_aiv", ["kb"])
    else:  # one archive for both ops: in plan order, but split by the vector entry, so extracted
        subs[1] = subs[0] = _archive(tmp, "op01", ["ka", "ka_split1", "kb", "kb_split1"])
        assert _both(tmp, subs, order)[2] == [True]  # as assumed: the early ld extracts them too
        return
    assert _both(tmp, subs, order)[2] == [False]


def _error(tmp, subs, order, early, **kw):
    with pytest.raises(SkError) as err:
        _link(tmp, subs, order, early, **kw)
    out = tmp / f"out_{kw.get('tag') or early}"
    # Scratch files live under $TMPDIR, so a failed link may not even have made the output directory.
    assert not (out / "sk.o").exists() and not (out / "sk.json").exists()
    assert not out.exists() or not [p for p in os.listdir(out) if p.startswith(".sk-")]
    # The output directory and the scratch directory's random name are the only differences.
    return re.sub(r"\.sk-scratch-[a-z0-9_]+", ".sk-scratch-X", re.sub(r"/out_(True|False)/", "/OUT/", str(err.value)))


def _script(tmp, name, body):
    path = tmp / name
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)
    return str(path)


BROKEN = {
    "missing_member": ("has no such member", lambda tmp, subs, order: (subs, order + [_item(1, "kc")], {})),
    "missing_archive": ("cannot read sub-kernel archive",
                        lambda tmp, subs, order: ([subs[0], str(tmp / "gone.a")], order, {})),
    "member_not_an_object": ("in archive is not an object", lambda tmp, subs, order: (
        [subs[0], str(arfile_with(tmp, "junk.a", [("kb.o", b"junk"), ("kb_split1.o", b"junk")]))], order, {})),
    "entry_not_an_object": ("not an elf object", lambda tmp, subs, order: (
        subs, order, {"_junk": "sk_mix_aiv.o"})),
    "entry_without_its_symbol": ("does not define its entry symbol", lambda tmp, subs, order: (
        subs, order, {"_entry": ("sk_mix_aiv", "sk_other")})),
    "meta_not_json": ("cannot read the superkernel json", lambda tmp, subs, order: (
        subs, order, {"meta": write(tmp / "bad.json", "{")})),
    "objcopy_fails": ("localising the entry object failed with exit status 3: broken objcopy",
                      lambda tmp, subs, order: (subs, order, {"tools": _tools(
                          objcopy=_script(tmp, "objcopy", "echo broken objcopy >&2; exit 3\n"))})),
    "ld_fails": ("multiple definition of", lambda tmp, subs, order: (
        [subs[0], _archive(tmp, "dup", ["ka", "kb_split1"])], order[:-2] + [_item(1, "ka"), _item(1, "kb_split1")],
        {})),
    "ld_missing": ("tool not found", lambda tmp, subs, order: (
        subs, order, {"tools": _tools(linker=str(tmp / "no_ld"))})),
}


def arfile_with(tmp, name, members):
    path = tmp / name
    path.write_bytes(ar.pack(members))
    return path


def write(path, text):
    path.write_text(text)
    return path


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_errors_are_the_checked_links_with_or_without_the_early_start(kit, case):
    tmp, subs, order = kit
    words, make = BROKEN[case]
    subs, order, kw = make(tmp, subs, order)
    if "_entry" in kw:
        name, symbol = kw.pop("_entry")
        _entry(tmp / "entry" / f"{name}.o", symbol, ["kb"])
    if "_junk" in kw:
        (tmp / "entry" / kw.pop("_junk")).write_bytes(b"junk")
    early, checked = _error(tmp, subs, order, True, **kw), _error(tmp, subs, order, False, **kw)
    assert early == checked
    assert words in early.lower()


def test_a_stopped_early_link_leaves_no_ld_running(kit):
    tmp, subs, order = kit
    marker = tmp / "ld_finished"
    slow_ld = _script(tmp, "slow_ld", f'sleep 2; touch "{marker}"\n')
    tools = _tools(linker=slow_ld)
    inputs = link._plan_inputs(_plan(order, 2), {n: str(tmp / "entry" / n) for n in os.listdir(tmp / "entry")},
                               subs, lambda path: True)
    work = tmp / "work"
    work.mkdir()
    early = linkprep.EarlyLink.start(tools, inputs, linkprep.ArchiveCache(), str(work), lambda: False,
                                     str(tmp / "o.o"))
    shutil.copyfile(_archive(tmp, "swapped", ["ka_split1", "ka"]), subs[0])  # not as assumed any more
    assert not early.holds(linkprep.ArchiveCache())  # so ld was killed and reaped
    time.sleep(2.3)
    assert not marker.exists()


def test_assumed_archives_answer_with_the_plans_members_in_first_use_order(tmp_path):
    cache = linkprep.ArchiveCache()
    items = [linkprep.LinkInput("a", "x.a", "m2.o"), linkprep.LinkInput("b", "x.a", "m1.o"),
             linkprep.LinkInput("c", "y.o"), linkprep.LinkInput("d", "x.a", "m2.o", rename=(("f", "f_split1"),))]
    assumed = linkprep.AssumedArchives(cache, items)
    assert assumed.names("x.a") == ["m2.o", "m1.o"]
    with pytest.raises(KeyError):
        assumed.names("y.o")
