"""Scans the bytes of build artefacts for things that make outputs machine- or run-specific.

What counts as a leak (each finding names the file, offset, kind and the bytes around it):
  * a literal the caller knows is run-specific: checkout dirs, output bases, the
    temp dir, $HOME, the user name, the host name;
  * generic absolute locations a hermetic output never holds: /home/…, /root/…,
    /tmp/…, …/execroot/…, …/sandbox/…, …/_bazel_…;
  * pid-looking text: `pid=123`, `pid: 123`, `PID 123`;
  * timestamp-looking text: ISO 8601 date-times, `__DATE__`/ctime dates
    ("Nov 25 2026"), clock times (12:34:56), and decimal Unix times in
    seconds or milliseconds within [now - 3 years, now + 1 day].
Binary files are scanned as raw bytes (ELF string tables and DWARF included),
so a DW_AT_comp_dir or a path baked into .rodata is caught too.
"""

import collections
import re
import time

Finding = collections.namedtuple("Finding", "path offset kind context")

# Names so common as words that a match says nothing (their $HOME is still scanned).
GENERIC_NAMES = frozenset({"root", "user", "admin", "test", "build", "runner", "ubuntu", "debian", "localhost"})

MONTHS = b"Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec"
PATTERNS = (
    ("absolute path", re.compile(rb"(?:(?<![\w.\-])|(?<=-[IL]))/(?:home|root|tmp|var/tmp|private/var)/[\w.\-]")),
    ("bazel execroot path", re.compile(rb"/(?:execroot|sandbox|_bazel_\w+)/")),
    ("pid", re.compile(rb"(?i)\bpid\b[\s=:#\"']*\d+")),
    ("ISO date-time", re.compile(rb"\b(?:19|20)\d\d-[01]\d-[0-3]\d[T ][0-2]\d:[0-5]\d")),
    ("date", re.compile(rb"\b(?:" + MONTHS + rb") [ 0-3]\d (?:19|20)\d\d\b")),
    ("clock time", re.compile(rb"(?<![\d:.])[0-2]\d:[0-5]\d:[0-5]\d(?![\d:])")),
)
EPOCH = re.compile(rb"(?<![\w.])(1\d{9}|1\d{12})(?:\.\d+)?(?![\w.])")


def literal_needles(dirs=(), user=None, host=None):
    """(kind, bytes) pairs for the run-specific literals; generic or tiny names are left out."""
    needles = []
    for d in sorted({d.rstrip("/") for d in dirs if d and d.rstrip("/")}):
        if d.count("/") >= 1 and len(d) > 1:
            needles.append(("directory " + d, d.encode()))
    for kind, name in (("user name", user), ("host name", host)):
        if name and len(name) >= 3 and name.lower() not in GENERIC_NAMES:
            needles.append((kind, name.encode()))
    return needles


def _context(data, start, end):
    lo, hi = max(0, start - 24), min(len(data), end + 24)
    return data[lo:hi].decode("latin-1").encode("unicode_escape").decode("ascii")


def scan_bytes(name, data, needles, now=None):
    """Findings in one artefact's bytes, sorted by offset."""
    found = []
    for kind, needle in needles:
        # Names are matched as whole words; directories as whole path
        # prefixes (so /root does not match inside /roots).
        if kind in ("user name", "host name"):
            regex = re.compile(rb"(?<![\w-])" + re.escape(needle) + rb"(?![\w-])")
        else:
            regex = re.compile(re.escape(needle) + rb"(?![\w.\-])")
        for m in regex.finditer(data):
            found.append(Finding(name, m.start(), kind, _context(data, m.start(), m.end())))
    for kind, regex in PATTERNS:
        for m in regex.finditer(data):
            found.append(Finding(name, m.start(), kind, _context(data, m.start(), m.end())))
    now = time.time() if now is None else now
    lo, hi = now - 3 * 365 * 86400, now + 86400
    for m in EPOCH.finditer(data):
        value = int(m.group(1))
        seconds = value / 1000 if len(m.group(1)) == 13 else value
        if lo <= seconds <= hi:
            found.append(Finding(name, m.start(), "Unix time", _context(data, m.start(), m.end())))
    return sorted(found, key=lambda f: (f.offset, f.kind))


def scan_files(files, needles, now=None):
    """files: {name: filesystem path}. Returns all findings, sorted by name then offset."""
    out = []
    for name in sorted(files):
        with open(files[name], "rb") as f:
            out.extend(scan_bytes(name, f.read(), needles, now))
    return out


def format_findings(findings, limit=20):
    lines = ["%s @%d: %s: ...%s..." % (f.path, f.offset, f.kind, f.context) for f in findings[:limit]]
    if len(findings) > limit:
        lines.append("... and %d more" % (len(findings) - limit))
    return "\n".join(lines)
