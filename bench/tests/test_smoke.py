"""`python -m bench --quick` on 10 sub-kernels: the results file has every field (times are not checked)."""

import json
import shutil

import pytest

from bench import __main__ as bench_main


@pytest.mark.skipif(not all(shutil.which(t) for t in ("g++", "ld", "objcopy")), reason="needs g++, ld, objcopy")
def test_quick_fusion_writes_every_field(tmp_path, capsys):
    out, plot = tmp_path / "results.json", tmp_path / "fusion_time.png"
    code = bench_main.main(["--quick", "--parts", "fusion", "--work", str(tmp_path / "work"), "--out", str(out),
                            "--plot", str(plot)])
    assert code == 0
    r = json.loads(out.read_text())
    assert r["schema"] == 2 and r["quick"] is True and r["parts"] == ["fusion"]
    sizes = r["fusion"]["sizes"]
    assert [s["sub_kernels"] for s in sizes] == [10]
    s = sizes[0]
    assert set(s["median_s"]) == {"gen", "entry", "entry_cube", "entry_vec", "link", "ld", "localize", "tools",
                                  "fuse", "build", "gen_warm", "link_warm", "fuse_warm"}
    assert s["split_mode"] == 4 and s["rounds"] == 3
    assert s["kernel_types"] == sorted(s["kernel_types"]) and len(s["kernel_types"]) == 6
    # Entry objects + 10 sub-kernels x 4 copies (split-mode 4), MIX ones counted once.
    assert s["link_inputs"] >= 40
    # The MIX SuperKernel's two halves, each from its own `sk entry compile --arch` action, each its split set
    # (entry stub, the renamed half, three copies) at split-mode 4.
    assert s["entry_halves"] == sorted(
        f"entry_{side}/{name}" for side, half, stub in (("cube", "aic", 0), ("vec", "aiv", 1))
        for name in (f"sk_{stub}.o", f"sk_syn10_mix_{half}.o",
                     *(f"sk_syn10_mix_{half}.o.split{i}.o" for i in range(1, 4))))
    # The baseline ld gets what sk link gives GNU ld.
    assert s["ld_flags"] == ["-r", "--hash-size=31"]
    for key in ("fuse_over_ld", "fuse_over_ld_warm", "sk_build_over_ld", "tools_over_ld"):
        assert isinstance(s[key], float) and s[key] > 0
    # The timed localise leaves what sk link leaves: the entry symbols and g_opSystemRunCfg the only globals.
    from sk.binfmt import objfacts

    root = tmp_path / "work" / "work" / "fuse_10"  # bench keeps its inputs in <--work>/work
    exported = {sym.name for sym in objfacts.read_object(str(root / "ld_localized.o")).defined_globals()}
    assert exported == {sym.name for sym in objfacts.read_object(str(root / "sk_syn10.o")).defined_globals()}
    assert exported == {"sk_syn10_mix_aic", "sk_syn10_mix_aiv", "g_opSystemRunCfg"}
    assert r["fusion"]["sk_build_over_ld"] == {"10": s["sk_build_over_ld"]}
    assert plot.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    printed = capsys.readouterr().out
    assert "| 10 |" in printed and "fuse_over_ld @1200" in printed
