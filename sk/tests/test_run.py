"""sk run's pure parts: scope locations, op_statistic rows and CSV, launch topologies."""

from types import SimpleNamespace

from sk.twin import run


def test_scope_locations_follow_ge():
    assert [run.scope_location(i, 4) for i in range(4)] == ["start", "middle", "middle", "end"]
    assert run.scope_location(0, 1) == "start"


def test_rows_group_by_type_and_core_and_sort_by_total(tmp_path):
    kinds = [("Add", "AI_VECTOR_CORE"), ("Mul", "AI_CORE"), ("Add", "AI_VECTOR_CORE")]
    results = [SimpleNamespace(wall_ns=1000), SimpleNamespace(wall_ns=5000), SimpleNamespace(wall_ns=3000)]
    rows = run.op_statistic_rows(kinds, results)
    assert [(r[0], r[1], r[2], r[3], r[4], r[6]) for r in rows] == [
        ("Mul", "AI_CORE", 1, 5.0, 5.0, 5.0), ("Add", "AI_VECTOR_CORE", 2, 4.0, 1.0, 3.0)]
    assert abs(sum(r[7] for r in rows) - 100.0) < 1e-9
    path = tmp_path / "p" / "op_statistic.csv"
    run.write_csv(str(path), rows)
    lines = path.read_text().splitlines()
    assert lines[0] == "OP Type,Core Type,Count,Total Time(us),Min Time(us),Avg Time(us),Max Time(us),Ratio(%)"
    assert lines[2] == "Add,AI_VECTOR_CORE,2,4.000,1.000,2.000,3.000,44.44"
    assert "| Total | | 3 | 9.00 | |" in run.table("t", rows)
