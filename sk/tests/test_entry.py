"""`sk entry compile` on the host: one half per action, localised where it is compiled, at the glue's -O0.

Real g++ and objcopy over a small stand-in for the generated source (the
mini runtime header of test_link), real ld in the link that takes the halves.
"""

import os
import shutil

import pytest

from sk.base.errors import SkError
from sk.binfmt import objfacts
from sk.toolflow import entry, toolargv
from sk.cli import main as cli
from sk.engine import planfacts

HERE = os.path.dirname(os.path.abspath(__file__))
MINI = os.path.join(HERE, "fixtures", "mini_rt")
GXX, OBJCOPY = shutil.which("g++"), shutil.which("objcopy")
pytestmark = pytest.mark.skipif(not (GXX and OBJCOPY), reason="needs g++ and objcopy on PATH")

# What matters of the generated source: one entry named by a -D per half, an inline helper and a template
# both halves define (COMDAT groups at -O0), an inline thread_local as profiling=1 declares (g++ binds it
# STB_GNU_UNIQUE), calls to sub-kernel functions defined elsewhere.
SOURCE = """#include "kernel_operator.h"
extern "C" void ka_middle(unsigned long);
inline int shared_inline() { return 7; }
template <int N> int twice() { return 2 * N; }
inline thread_local unsigned g_task_id;
extern "C" void auto_gen_sk_kernel(void) { g_task_id = 1; ka_middle(shared_inline() + twice<3>() + g_task_id); }
"""


def _plan(kernel_type="KERNEL_TYPE_MIX_AIC_1_1", sides=("cube", "vec")):
    names = {"cube": "sk_mix_aic", "vec": "sk_mix_aiv"}
    entries = tuple(planfacts.EntryFacts(side, names[side], f"-Dauto_gen_sk_kernel={names[side]}",
                                         f"{names[side]}.o") for side in sides)
    return planfacts.PlanFacts("sk", kernel_type, "1:1", 8, 1, entries, (), (), 1, {})


def _tools(objcopy=True):
    return toolargv.Tools("host", compiler=GXX, objcopy=OBJCOPY if objcopy else None)


@pytest.fixture
def src(tmp_path):
    path = tmp_path / "sk_kernel.cpp"
    path.write_text(SOURCE)
    return str(path)


def test_host_entry_compiles_at_the_glue_level_and_cann_argv_is_compile_argvs():
    host = toolargv.Tools("host", compiler="/usr/bin/g++")
    argv = toolargv.entry_compile_argv(host, "k.cpp", "k.o", arch="cube", extra=["-g"])
    assert argv[:5] == ["/usr/bin/g++", "-c", "-std=c++17", "-O0", "-fPIC"] and "-O2" not in argv
    assert argv == toolargv.compile_argv(host, "k.cpp", "k.o", arch="cube", extra=["-g"], host_opt="-O0")
    cann = toolargv.Tools("cann", compiler="/cann/bin/bisheng")
    kw = dict(arch="vec", defines=["-DX=1"], include_dirs=["inc"], extra=["-g"], tail=["-DTILING_KEY_VAR=0UL"])
    assert toolargv.entry_compile_argv(cann, "k.cpp", "k.o", **kw) == toolargv.compile_argv(cann, "k.cpp", "k.o",
                                                                                          **kw)


def test_each_half_is_its_own_compile_and_leaves_localised(tmp_path, src):
    written = {}
    for side in ("cube", "vec"):
        out_dir = tmp_path / f"entry_{side}"
        done = entry.compile_entry(_tools(), _plan(), src=src, flags=[], out_dir=str(out_dir), side=side,
                                   include_dirs=[MINI])
        assert [u.side for u, _ in done] == [side]
        written[side] = sorted(os.listdir(out_dir))
    assert written == {"cube": ["sk_mix_aic.o"], "vec": ["sk_mix_aiv.o"]}
    info = objfacts.read_object(str(tmp_path / "entry_cube" / "sk_mix_aic.o"))
    assert [s.name for s in info.defined_globals()] == ["sk_mix_aic"]
    assert info.group_count == 0
    # The sub-kernel, and what thread-local access needs from the twin's shared library.
    assert sorted(s.name for s in info.undefined()) == ["_GLOBAL_OFFSET_TABLE_", "__tls_get_addr", "ka_middle"]
    # Without an objcopy the half keeps its globals and groups; sk link localises it then.
    entry.compile_entry(_tools(objcopy=False), _plan(), src=src, flags=[], out_dir=str(tmp_path / "raw"),
                        side="cube", include_dirs=[MINI])
    raw = objfacts.read_object(str(tmp_path / "raw" / "sk_mix_aic.o"))
    assert {s.name for s in raw.defined_globals()} > {"sk_mix_aic"} and raw.group_count > 0
    assert not [p for p in os.listdir(tmp_path / "entry_cube") if p.startswith(".sk-")]


def test_a_side_the_plan_lacks_leaves_an_empty_directory_but_a_named_output_is_an_error(tmp_path, src):
    vec_only = _plan("KERNEL_TYPE_MIX_AIV_1_0", sides=("vec",))
    assert entry.compile_entry(_tools(), vec_only, src=src, flags=[], out_dir=str(tmp_path / "entry_cube"),
                               side="cube", include_dirs=[MINI]) == []
    assert os.listdir(tmp_path / "entry_cube") == []
    with pytest.raises(SkError, match="has no cube half"):
        entry.compile_entry(_tools(), vec_only, src=src, flags=[], out=str(tmp_path / "x.o"), side="cube",
                            include_dirs=[MINI])
    assert not (tmp_path / "x.o").exists()


def test_cli_rejects_out_dir_with_o(tmp_path, capsys):
    for name in ("p.json", "s.cpp"):  # the inputs pass their gates
        (tmp_path / name).write_text("{}")
    code = cli.main(["entry", "compile", "--toolchain", "host", "--compiler", GXX, "--plan", str(tmp_path / "p.json"),
                     "--src", str(tmp_path / "s.cpp"), "--out-dir", str(tmp_path), "--arch", "cube", "-o", "x.o"])
    assert code == 2
    assert "give either --out-dir" in capsys.readouterr().err


def test_a_failing_compile_leaves_nothing(tmp_path):
    bad = tmp_path / "bad.cpp"
    bad.write_text("this is not C++\n")
    with pytest.raises(SkError, match="compiling the SuperKernel entry"):
        entry.compile_entry(_tools(), _plan(), src=str(bad), flags=[], out_dir=str(tmp_path / "e"), side="cube",
                            include_dirs=[MINI])
    assert not (tmp_path / "e").exists() or os.listdir(tmp_path / "e") == []


def _split_plan(split):
    names = {"cube": "sk_mix_aic", "vec": "sk_mix_aiv"}
    entries = tuple(planfacts.EntryFacts(side, names[side], f"-Dauto_gen_sk_kernel={names[side]}",
                                         f"{names[side]}.o") for side in ("cube", "vec"))
    return planfacts.PlanFacts("sk", "KERNEL_TYPE_MIX_AIC_1_1", "1:1", 8, split, entries, (), (), 1, {})


def test_at_split_mode_3_each_half_is_its_stub_the_renamed_half_and_its_copies(tmp_path, src):
    from sk.twin.binding import INCLUDE_DIR  # the stub's twin branch needs the twin's get_coreid

    for side in ("cube", "vec"):
        entry.compile_entry(_tools(), _split_plan(3), src=src, flags=[], out_dir=str(tmp_path / f"entry_{side}"),
                            side=side, include_dirs=[str(INCLUDE_DIR)])
    assert sorted(os.listdir(tmp_path / "entry_cube")) == ["sk_0.o", "sk_mix_aic.o", "sk_mix_aic.o.split1.o",
                                                           "sk_mix_aic.o.split2.o"]
    assert sorted(os.listdir(tmp_path / "entry_vec")) == ["sk_1.o", "sk_mix_aiv.o", "sk_mix_aiv.o.split1.o",
                                                          "sk_mix_aiv.o.split2.o"]

    def globals_of(name, side="cube"):
        return sorted(s.name for s in objfacts.read_object(str(tmp_path / f"entry_{side}" / name)).defined_globals())

    # The stub defines the entry and (cube side of a MIX SuperKernel) g_opSystemRunCfg, and calls every copy.
    assert globals_of("sk_0.o") == ["g_opSystemRunCfg", "sk_mix_aic"]
    assert globals_of("sk_1.o", "vec") == ["sk_mix_aiv"]
    called = {s.name for s in objfacts.read_object(str(tmp_path / "entry_cube" / "sk_0.o")).undefined()}
    assert {"_sk_mix_aic", "_sk_mix_aic_1", "_sk_mix_aic_2"} <= called
    assert globals_of("sk_mix_aic.o") == ["_sk_mix_aic"]
    assert globals_of("sk_mix_aic.o.split2.o") == ["_sk_mix_aic_2"]
    assert globals_of("sk_mix_aiv.o.split1.o", "vec") == ["_sk_mix_aiv_1"]
    assert not [p for p in os.listdir(tmp_path / "entry_cube") if p.startswith(".sk-") or p.endswith(".cpp")]


def test_a_split_half_needs_the_objcopy_and_a_directory(tmp_path, src):
    with pytest.raises(SkError, match="at split-mode 4 a half is its entry stub"):
        entry.compile_entry(_tools(objcopy=False), _split_plan(4), src=src, flags=[], out_dir=str(tmp_path / "d"),
                            side="cube", include_dirs=[MINI])
    with pytest.raises(SkError, match="at split-mode 4 a half is its entry stub") as err:
        entry.compile_entry(_tools(), _split_plan(4), src=src, flags=[], out=str(tmp_path / "x.o"), side="cube",
                            include_dirs=[MINI])
    assert "-o" in str(err.value) and not (tmp_path / "x.o").exists()
