"""Reads Bazel's JSON execution log (--execution_log_json_file) and judges cache use.

Bazel 7 writes one SpawnExec message per spawn as pretty-printed JSON objects
one after another (not a JSON array). The fields used here: mnemonic, runner
("remote cache hit", "remote", "linux-sandbox", "local", ...), cacheHit,
cacheable, remotable, remoteCacheable, targetLabel, actualOutputs[{path, digest{hash}}].
"""

import collections
import json

REMOTE_CACHE_HIT = "remote cache hit"
REMOTE_EXECUTION = "remote"

Spawn = collections.namedtuple(
    "Spawn", "mnemonic runner cache_hit cacheable remotable remote_cacheable target outputs")


class ExecLogError(Exception):
    """The execution log is missing or not what Bazel writes."""


def parse_spawns(text, source="execution log"):
    """Returns the Spawns of a JSON execution log's text, in log order."""
    decoder = json.JSONDecoder()
    spawns, pos, n = [], 0, len(text)
    while True:
        while pos < n and text[pos].isspace():
            pos += 1
        if pos >= n:
            return spawns
        try:
            obj, pos = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as e:
            raise ExecLogError("%s: not a sequence of JSON objects (%s)" % (source, e)) from None
        if not isinstance(obj, dict) or "mnemonic" not in obj:
            raise ExecLogError("%s: object #%d has no 'mnemonic'; is this --execution_log_json_file output?"
                               % (source, len(spawns) + 1))
        outputs = tuple(sorted(
            (o["path"], o.get("digest", {}).get("hash", "")) for o in obj.get("actualOutputs", [])))
        spawns.append(Spawn(
            mnemonic=obj["mnemonic"],
            runner=obj.get("runner", ""),
            cache_hit=bool(obj.get("cacheHit", obj.get("remoteCacheHit", False))),
            cacheable=bool(obj.get("cacheable", False)),
            remotable=bool(obj.get("remotable", False)),
            remote_cacheable=bool(obj.get("remoteCacheable", obj.get("cacheable", False))),
            target=obj.get("targetLabel", ""),
            outputs=outputs,
        ))


def read_spawns(path):
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise ExecLogError("cannot read execution log %s: %s" % (path, e)) from None
    return parse_spawns(text, path)


def by_mnemonic(spawns, mnemonics):
    """{mnemonic: [spawns]} for the listed mnemonics, every listed one present (maybe empty)."""
    out = {m: [] for m in mnemonics}
    for s in spawns:
        if s.mnemonic in out:
            out[s.mnemonic].append(s)
    return out


def missing_mnemonics(spawns, mnemonics):
    """The listed mnemonics no spawn of the log has, sorted: a check over them would be vacuous."""
    seen = {s.mnemonic for s in spawns}
    return sorted(m for m in mnemonics if m not in seen)


class CacheVerdict:
    """How the spawns of the listed mnemonics were served in one build."""

    def __init__(self, spawns, mnemonics):
        self.per_mnemonic = {}
        self.offenders = []  # spawns that did not come from the remote cache
        for m, group in sorted(by_mnemonic(spawns, mnemonics).items()):
            hits = [s for s in group if s.runner == REMOTE_CACHE_HIT]
            self.per_mnemonic[m] = (len(hits), len(group))
            self.offenders.extend(s for s in group if s.runner != REMOTE_CACHE_HIT)
        self.hits = sum(h for h, _ in self.per_mnemonic.values())
        self.total = sum(t for _, t in self.per_mnemonic.values())

    @property
    def share(self):
        return self.hits / self.total if self.total else 0.0

    def describe_offender(self, s):
        why = "ran with runner '%s'" % s.runner
        if not s.cacheable or not s.remote_cacheable:
            why += " (not cacheable: tagged no-cache/no-remote-cache or uncacheable action)"
        return "%s %s: %s; outputs %s" % (s.mnemonic, s.target, why, ", ".join(p for p, _ in s.outputs[:3]))

    def table(self):
        return ", ".join("%s %d/%d" % (m, h, t) for m, (h, t) in sorted(self.per_mnemonic.items()))


def runner_counts(spawns, mnemonics):
    """{mnemonic: {runner: count}} for the listed mnemonics."""
    out = {}
    for m, group in by_mnemonic(spawns, mnemonics).items():
        out[m] = dict(sorted(collections.Counter(s.runner for s in group).items()))
    return out


def output_digests(spawns, mnemonics):
    """{execroot-relative output path: sha256 Bazel recorded} for the listed mnemonics' spawns."""
    out = {}
    for group in by_mnemonic(spawns, mnemonics).values():
        for s in group:
            for path, digest in s.outputs:
                out[path] = digest
    return dict(sorted(out.items()))
