"""Test helper: drop chosen barriers whatever their hazards say, to show that a missing barrier is caught."""

from sk.engine.plan import barriers


def force_elided(monkeypatch, pairs):
    """Make sync-elision drop the barrier between ops (i, j) for each pair in `pairs` (unsafe on purpose)."""
    real = barriers.elision_barrier

    def forced(ctx, tracker, p, c, records):
        between = [p["index"], c["index"]]
        if tuple(between) in pairs:
            records.append({"between": between, "kind": "elided", "reason": "forced by the test (unsafe)"})
            return [{"kind": "elided_barrier"}]
        return real(ctx, tracker, p, c, records)

    monkeypatch.setattr(barriers, "elision_barrier", forced)
