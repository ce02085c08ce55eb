"""The part of a super_kernel's options its sub-kernels are compiled with.

Which options those are is the sk tool's rule (sk/engine/inherited.py),
rendered into inherited_keys.bzl. The super_kernel rule moves its ops into a
configuration carrying only those keys, so two SuperKernels that agree on
them share one compile of each sub-kernel. Only the `k=v:k=v` parts are
picked out here; values are validated and given meaning by the sk tool,
which receives them unchanged and reads the same keys.
"""

load(":inherited_keys.bzl", "INHERITED_KEYS")

def _pick(options, keys):
    picked = {}
    text = options.strip()
    if len(text) >= 2 and text.startswith('"') and text.endswith('"'):
        text = text[1:-1]
    for part in text.split(":"):
        key, sep, value = part.partition("=")
        if sep and key.strip() in keys:
            picked[key.strip()] = value.strip()
    return picked

def inherited_options(options):
    picked = _pick(options, INHERITED_KEYS)
    return ":".join(["%s=%s" % (k, picked[k]) for k in INHERITED_KEYS if k in picked])

def scope_check(options):
    """The strict-scope-check value ("" when unset), for scope splitting."""
    return _pick(options, ["strict-scope-check"]).get("strict-scope-check", "")

def _transition_impl(settings, attr):
    return {"//rules:inherited_options": inherited_options(attr.options)}

inherit_options_transition = transition(
    implementation = _transition_impl,
    inputs = [],
    outputs = ["//rules:inherited_options"],
)
