"""The output gate: whether sk may put an output at a path, decided before anything runs.

Outputs are published by renaming over whatever is at the path
(sk/base/toolrun.py `publish`), so a path that names a character device, a
FIFO or a directory would be replaced by a regular file (as root,
/dev/null), or fail halfway. An output path must be absent or a regular
file (a symbolic link to one is replaced by the file, as Bazel's outputs
are); an output directory absent or a directory. Either way every parent
that exists must be a directory sk can write into. The CLI's output gate
(sk/cli/gates.py) runs this on every output flag before a command starts;
publish runs it again on every destination as the last line.
"""

from __future__ import annotations

import os
import stat

from sk.base.infile import kind_of, path_text_problem, pseudo_root


def output_problem(path: str, want: str = "file") -> str:
    """Why `path` cannot be an output ("" when it can). want: "file" or "dir" (sk makes it if absent)."""
    problem = path_text_problem(path)
    if problem:
        return problem
    try:
        st = os.stat(path)
    except FileNotFoundError:
        if os.path.lexists(path):
            return "is a symbolic link to nothing"
        st = None
    except NotADirectoryError:
        st = None
    except OSError as err:
        return f"cannot be examined ({err.strerror or err})"
    link = "a symbolic link to " if os.path.islink(path) else ""
    if st is not None and want == "dir" and not stat.S_ISDIR(st.st_mode):
        return f"is {link}{kind_of(st.st_mode)}, not a directory"
    if st is not None and want != "dir" and not stat.S_ISREG(st.st_mode):
        return f"is {link}{kind_of(st.st_mode)}; an output must be absent or a regular file"
    root = pseudo_root(path)
    if root:
        return f"lies in {root}, a pseudo file system, where sk writes nothing"
    if st is None:
        return _parent_problem(path)
    if want == "dir" and not os.access(path, os.W_OK | os.X_OK):
        return "is a directory sk may not write into (permission denied)"
    return "" if want == "dir" else _parent_problem(path, exists=True)


def _parent_problem(path: str, exists: bool = False) -> str:
    """Why the output's directory cannot hold it: its nearest existing ancestor must be a writable directory."""
    parent = os.path.dirname(os.path.abspath(path))
    while True:
        try:
            st = os.stat(parent)
        except FileNotFoundError:
            up = os.path.dirname(parent)
            if up == parent:
                return ""
            parent = up
            continue
        except NotADirectoryError:
            parent = os.path.dirname(parent)
            continue
        except OSError as err:
            return f"cannot be examined ({err.strerror or err})"
        if not stat.S_ISDIR(st.st_mode):
            return f"cannot be made: {parent!r} is {kind_of(st.st_mode)}, not a directory"
        if not os.access(parent, os.W_OK | os.X_OK):
            return f"cannot be {'replaced' if exists else 'made'}: {parent!r} is not writable (permission denied)"
        return ""
