"""Where is CANN? A pure function, so it is unit-tested without a toolkit."""

DEFAULT_INSTALL = "/usr/local/Ascend/ascend-toolkit/latest"

# Compiler locations inside a toolkit, newest layout first.
COMPILER_DIRS = ["compiler/ccec_compiler/bin", "compiler/bin", "tools/ccec_compiler/bin", "bin"]

HOW_TO = ("point the build at CANN with `--repo_env=ASCEND_HOME_PATH=/path/to/ascend-toolkit/latest` " +
          "(or source CANN's set_env.sh before running Bazel), or with " +
          "`cann.toolkit(path = \"...\")` in your root MODULE.bazel; " +
          "or build for the CPU twin with --@rules_superkernel//toolchain:mode=host")

def _root_of_compiler(path):
    """Toolkit root for a bisheng/ccec found on PATH (strip the compiler dir)."""
    for d in COMPILER_DIRS:
        suffix = "/" + d
        parent = path.rpartition("/")[0]
        if parent.endswith(suffix):
            return parent[:-len(suffix)]
    return None

def detect_cann(tag_path, getenv, which, exists):
    """Finds the CANN toolkit root.

    Args:
      tag_path: path from the root module's cann.toolkit(path=...) tag, or "".
      getenv: function(name) -> value or None.
      which: function(program) -> absolute path or None.
      exists: function(path) -> bool.
    Returns:
      struct(found, root, compiler_dir, how, tried): `tried` lists
      "source: path (why rejected)" for the message when nothing is found.
    """
    candidates = []
    if tag_path:
        candidates.append(("cann.toolkit(path)", tag_path))
    for var in ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME"):
        value = getenv(var)
        if value:
            candidates.append((var, value))
    for prog in ("bisheng", "ccec"):
        found = which(prog)
        if found:
            root = _root_of_compiler(found)
            if root:
                candidates.append(("%s on PATH" % prog, root))
    candidates.append(("default install", DEFAULT_INSTALL))

    tried = []
    for how, root in candidates:
        root = root.rstrip("/") or "/"
        if not exists(root):
            tried.append("%s: %s (does not exist)" % (how, root))
            if how == "cann.toolkit(path)":
                return struct(found = False, root = root, compiler_dir = None, how = how, tried = tried)
            continue
        for d in COMPILER_DIRS:
            if exists(root + "/" + d + "/bisheng"):
                return struct(found = True, root = root, compiler_dir = d, how = how, tried = tried)
        tried.append("%s: %s (no bisheng under %s)" % (how, root, ", ".join(COMPILER_DIRS)))
        if how == "cann.toolkit(path)":
            # An explicit path that is wrong is an error, not a reason to look elsewhere.
            return struct(found = False, root = root, compiler_dir = None, how = how, tried = tried)
    return struct(found = False, root = None, compiler_dir = None, how = None, tried = tried)

def unavailable_message(result):
    return "CANN not found (tried: %s); %s" % ("; ".join(result.tried) or "nothing", HOW_TO)
