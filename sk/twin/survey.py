"""`sk twin survey`: does every operator of an operator repository compile for the CPU twin?

Each operator (sk.twin.opsrc) is compiled once per distinct set of its binary variants' ADK defines
(sk.engine.cannop.variant_defines), the way the op build compiles it (superkernel-facts.md §17.2): every op's
op_kernel/ staged side by side as `<op>/`, the host tiling structs in front (opsrc.tiling_prelude), and for a kernel
templated over ASCENDC_TPL arguments every combination ASCENDC_TPL_SEL selects instantiated (the arguments read from
a -DASCENDC_TPL_PRE preprocess, sk.engine.cannop). A variant compiles when g++ -fsyntax-only with the twin's flags
accepts it; the first error is reduced to what is missing (a header, an API, a name).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from sk.base.errors import SkError
from sk.engine import cannop
from sk.toolflow import toolargv
from sk.twin import opsrc

COMPILE_TIMEOUT_S = 300


@dataclass
class OpResult:
    """One operator: variants (op_list entries), compiled (of them), first (what the first failure misses: '' when
    all compiled), instances (template-argument combinations compiled per variant, 0 for a plain kernel), warnings
    (what was read leniently, as the ADK reads it: a binary config's repeated key)."""

    op: str
    path: str
    variants: int = 0
    compiled: int = 0
    first: str = ""
    instances: int = 0
    warnings: list = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.variants > 0 and self.compiled == self.variants

    def as_json(self) -> dict:
        return {"op": self.op, "path": self.path, "variants": self.variants, "compiled": self.compiled,
                "instances": self.instances, "ok": self.ok, "first_missing": self.first, "warnings": self.warnings}


_MISSING = [
    (re.compile(r"fatal error: ([^:]+): No such file or directory"), "header {0}"),
    (re.compile(r"the CPU twin does not implement (AscendC::\w+|the intrinsic \w+)"), "{0}"),
    (re.compile(r"#error \"?(the CPU twin does not implement [^(;\"]*)"), "{0}"),
    (re.compile(r"‘(\w+)’ is not a member of ‘(AscendC[\w:]*)’"), "{1}::{0}"),
    (re.compile(r"'(\w+)' is not a member of '(AscendC[\w:]*)'"), "{1}::{0}"),
    (re.compile(r"[‘'](\w+)[’'] (?:was not declared in this scope|has not been declared|does not name a type)"), "{0}"),
    (re.compile(r"there are no arguments to [‘'](\w+)[’']"), "{0}"),
    (re.compile(r"[‘'](?:const )?(?:class |struct )?(?:AscendC::)?(\w+)(?:<[^’']*>)?[’'] has no member named [‘'](\w+)[’']"),
     "{0}::{1}"),
    (re.compile(r"no matching function for call to [‘'](?:[\w:<>, ]*::)?(\w+)(?:<[^(]*>)?\("), "{0} (this form)"),
]


def first_missing(output: str, strip=()) -> str:
    """What the first error of a g++ run misses, as short as it can be said; the error line itself otherwise."""
    lines = [ln for ln in output.splitlines() if " error: " in ln or "fatal error:" in ln]
    if not lines:
        return "compiler failed without an error line" if output.strip() else ""
    line = lines[0]
    for rx, fmt in _MISSING:
        m = rx.search(line)
        if m:
            return fmt.format(*m.groups())
    text = line.split(" error: ", 1)[-1].strip()
    for s in strip:
        text = text.replace(s, "")
    return text[:160]


def _template_kernel(source: str, name: str) -> bool:
    return re.search(r"template\s*<[^;{}]*>\s*(?:__global__|__aicore__|__attribute__\(\([^)]*\)\)|\s)*void\s+"
                     + re.escape(name) + r"\s*\(", source) is not None


def _run(argv, cwd) -> tuple:
    try:
        res = subprocess.run(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             timeout=COMPILE_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return 1, f"error: the compile ran past {COMPILE_TIMEOUT_S} s"
    return res.returncode, res.stdout


class Survey:
    """Compiles the operators of root for soc with compiler (g++); work files under work."""

    def __init__(self, root: Path, *, soc: str, compiler: str, include_dir: Path, work: Path, under=()):
        self.root = Path(root)
        self.soc = soc
        self.compiler = compiler
        self.include_dir = str(include_dir)
        self.work = Path(work)
        self.ops = opsrc.find_operators_under(self.root, soc, under)
        # The op build stages every op_kernel/ of the repository, not only the surveyed ones; a surveyed op's own
        # folder wins a name two folders share.
        every = [op.folder / "op_kernel" for op in self.ops] + list(opsrc.staged_folders(self.root).values())
        self.registry = opsrc.tiling_registry(self.root, soc)
        self.stage = self.work / "stage"
        # Copies, not links: `../other/x.h` from a linked folder would resolve beside the link's target.
        self.stage.mkdir(parents=True, exist_ok=True)
        for folder in every:
            if folder.is_dir() and not (self.stage / folder.parent.name).exists():
                shutil.copytree(folder, self.stage / folder.parent.name)
                # Kernels also reach a sibling through the repository's own layout, `../../<op>/op_kernel/x.h`
                # (from stage/<their op>/ that is <work>/<op>/op_kernel/): the same copy there too.
                shutil.copytree(folder, self.work / folder.parent.name / "op_kernel")
        # The folders an op's CMakeLists.txt names as its dependencies (`mc2/common`, `mc2/3rd`) are copied whole
        # (less op_host/) beside the staged ops as `<name>/`, merged where two share a name (cp -rf), so
        # `../common/inc/kernel/x.h` from a staged kernel resolves; at the repository layout too, for
        # `../../common/...` from <work>/<op>/op_kernel/.
        for dep in dict.fromkeys(d for op in self.ops for d in opsrc.op_depends(op, self.root)):
            if (dep / "op_kernel").is_dir():
                continue  # an op: its op_kernel/ is staged above
            for dest in (self.stage / dep.name, self.work / dep.name):
                shutil.copytree(dep, dest, dirs_exist_ok=True,
                                ignore=lambda d, names, top=str(dep): ["op_host"] if d == top else [])

    def _strip(self):
        return (str(self.stage) + "/", str(self.work) + "/", str(self.root) + "/", self.include_dir + "/")

    def _check(self, op, variant, defines, prelude, tag) -> tuple:
        """(ok, first missing, instances) of one variant (and every variant with its defines)."""
        rel = op.kernel.relative_to(op.folder / "op_kernel")
        kernel = self.stage / op.name / rel
        if not kernel.is_file():
            return False, f"no kernel op_kernel/{rel.as_posix()}", 0
        incs = [str(self.stage), str(self.stage / op.name)]
        pre_out = self.work / f"{op.name}.{tag}.i"
        rc, out = _run(toolargv.twin_check_argv(self.compiler, str(kernel), include_dir=self.include_dir,
                                                include_dirs=incs, defines=[*defines, cannop.TPL_PRE_DEFINE],
                                                forced_includes=[prelude], preprocess_to=str(pre_out)), self.work)
        if rc != 0:
            return False, first_missing(out, self._strip()), 0
        text = pre_out.read_text(encoding="utf-8", errors="replace")
        pre_out.unlink()
        where = f"{op.name}/{rel.as_posix()}"
        try:
            tpl = cannop.parse_template_args(text, where)
            selected = cannop.selected_instances(tpl) if tpl is not None else []
            # A DATATYPE argument bound to a parameter (ASCENDC_TPL_INPUT/OUTPUT) takes the variant's dtype.
            bound = cannop.bound_args(tpl.decls, variant) if tpl is not None else {}
            selected = [i for i in selected if all(dict(i.args).get(k) == v for k, v in bound.items())]
        except SkError as e:
            return False, f"template arguments: {e.what}", 0
        source = kernel.read_text(encoding="utf-8", errors="replace")
        wrapper = self.work / f"{op.name}.{tag}.cpp"
        lines = [f'#include "{kernel}"']
        extra = []
        instances = 0
        if tpl is not None:
            extra.append(cannop.TPL_KERNEL_DEFINE)
            entry = op.entry or op.name
            if _template_kernel(source, entry):
                for i, inst in enumerate(selected):
                    params = cannop.template_param_text(tpl.decls, dict(inst.args))
                    lines.append(f"[[maybe_unused]] static auto sk_twin_instance_{i} = &{entry}<{params}>;")
                    instances += 1
        wrapper.write_text("\n".join(lines) + "\n")
        rc, out = _run(toolargv.twin_check_argv(self.compiler, str(wrapper), include_dir=self.include_dir,
                                                include_dirs=incs, defines=[*defines, *extra],
                                                forced_includes=[prelude]), self.work)
        return rc == 0, ("" if rc == 0 else first_missing(out, self._strip())), instances

    def survey_op(self, op) -> OpResult:
        res = OpResult(op.name, str(op.folder.relative_to(self.root)))
        try:
            # Repository-relative in the warning: the survey's output names no absolute path.
            variants = cannop.load_binary_config(
                str(op.binary_configs[0]), warn=lambda w: res.warnings.append(w.replace(str(self.root) + "/", "")))
        except SkError as e:
            res.first = f"binary config: {e.what}"
            return res
        res.variants = len(variants)
        variants = [_named_as_defined(v, opsrc.def_param_names(op)) for v in variants]
        prelude = self.work / f"{op.name}.prelude.h"
        prelude.write_text(opsrc.tiling_prelude(op, self.registry))
        done = {}
        for v in variants:
            try:
                defines = tuple(cannop.variant_defines(v))
            except SkError as e:
                ok, first, inst = False, f"variant {v.index}: {e.what}", 0
            else:
                if defines not in done:
                    done[defines] = self._check(op, v, defines, str(prelude), len(done))
                ok, first, inst = done[defines]
            res.compiled += ok
            res.instances = max(res.instances, inst)
            if not ok and not res.first:
                res.first = first
        return res

    def run(self, jobs: int = 2) -> list:
        with ThreadPoolExecutor(max(1, jobs)) as ex:
            return list(ex.map(self.survey_op, self.ops))


def _named_as_defined(variant, names):
    """variant with each parameter named as the op definition names the one at its index (names: def_param_names'),
    unchanged where the definition is missing or declares another number of inputs or outputs."""
    if names is None or len(names[0]) != len(variant.inputs) or len(names[1]) != len(variant.outputs):
        return variant

    def rename(params, new):
        return tuple(p if p is None else p._replace(name=n) for p, n in zip(params, new))

    return variant._replace(inputs=rename(variant.inputs, names[0]), outputs=rename(variant.outputs, names[1]))


def survey(root, *, soc: str, compiler: str, include_dir, under=(), jobs: int = 2, work=None) -> list:
    """OpResults of every operator under root (or its `under` folders) with a binary config for soc."""
    if work is not None:
        Path(work).mkdir(parents=True, exist_ok=True)
        return Survey(root, soc=soc, compiler=compiler, include_dir=include_dir, work=Path(work), under=under).run(jobs)
    with tempfile.TemporaryDirectory(prefix="sk-survey-") as tmp:
        return Survey(root, soc=soc, compiler=compiler, include_dir=include_dir, work=Path(tmp), under=under).run(jobs)


def table(results) -> str:
    """The survey as a text table and a total line."""
    rows = [("op", "variants", "compiled", "first missing API or header")]
    rows += [(r.op, str(r.variants), str(r.compiled), r.first or "-") for r in results]
    w0 = max(len(r[0]) for r in rows)
    out = [f"{r[0]:<{w0}}  {r[1]:>8}  {r[2]:>8}  {r[3]}" for r in rows]
    ok = sum(r.ok for r in results)
    nv = sum(r.variants for r in results)
    cv = sum(r.compiled for r in results)
    out.append(f"compiled: {ok} of {len(results)} operators (every variant), {cv} of {nv} variants")
    return "\n".join(out) + "\n"


def summary(results) -> dict:
    return {"operators": len(results), "operators_compiled": sum(r.ok for r in results),
            "variants": sum(r.variants for r in results), "variants_compiled": sum(r.compiled for r in results),
            "ops": [r.as_json() for r in results]}
