"""The part of a super_kernel's options its sub-kernels are compiled with.

Sub-kernels must be compiled with the SuperKernel's split-mode, early-start
and feed-sync-all (superkernel-facts.md §1.4, §2.2). The super_kernel rule
moves its ops into a configuration carrying only those keys, so two
SuperKernels that agree on them share one compile of each sub-kernel. Only
the `k=v:k=v` tokens are picked out here; values are validated and given
meaning by the sk tool, which receives them unchanged.
"""

INHERITED_KEYS = ["early-start", "feed-sync-all", "split-mode"]

def _pick(options, keys):
    picked = {}
    for part in options.strip().strip('"').split(":"):
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
