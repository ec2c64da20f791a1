"""Run the rules over source text, files or folders.

Data flows one way: text → SourceFile → ModuleContext (imports, index, graph model) → rules →
findings, filtered by settings and `# noqa`. A rule that raises is recorded in
`Analysis.errors` and skipped; the other rules still run.
"""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import gc
import itertools
import os
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from tf_insight.check import rules
from tf_insight.check.context import ModuleContext
from tf_insight.check.discovery import iter_python_files
from tf_insight.check.graph_model import ContextKind, CrossModuleCall, GraphFact
from tf_insight.check.index import FunctionInfo
from tf_insight.check.keras_flavor import Flavor
from tf_insight.check.notebook import in_cells
from tf_insight.check.project import Project
from tf_insight.check.source import SourceFile
from tf_insight.config import Config
from tf_insight.findings import Finding, Span
from tf_insight.text import one_line

SYNTAX_ERROR = rules.BY_CODE["TFI000"]
UNREADABLE = rules.BY_CODE["TFI900"]


@dataclass
class Analysis:
    path: str
    findings: list[Finding] = field(default_factory=list)
    module: ModuleContext | None = None
    errors: list[str] = field(default_factory=list)  # rules that crashed, files unreadable
    notes: list[str] = field(default_factory=list)  # what the user should know (a limit hit)
    # top-level statements analysed again after an edit, the others' findings reused (None:
    # all were analysed; see `tf_insight.check.incremental`)
    reanalysed: int | None = None
    graph_facts: list[GraphFact] = field(default_factory=list)  # made by incremental analyses


def analyze_source(text: str, path: str, project: Project | None = None) -> Analysis:
    with paused_gc():
        return analyze_parsed(SourceFile.parse(path, text), project or Project())


def analyze_parsed(source: SourceFile, project: Project, limit: int | None = None) -> Analysis:
    """`limit`: report at most this many findings of each rule (an editor has no use for
    thousands, and a crafted file can yield them by the ten thousand)."""
    if source.tree is None:
        return _syntax_error(source, project)
    with paused_gc():
        return run_rules(ModuleContext(source, project, project.seeds_for(source.path)), limit)


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """No cyclic garbage collection while one file is analysed: its trees and tables all live
    until the end, and each full collection would scan them again (half the time of a large
    file). What the analysis leaves cyclic is collected afterwards."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _syntax_error(source: SourceFile, project: Project) -> Analysis:
    analysis = Analysis(path=source.path)
    if source.syntax_error is not None and project.config.enabled(SYNTAX_ERROR.code):
        finding = Finding(SYNTAX_ERROR.code, SYNTAX_ERROR.name, source.syntax_error.message,
                          source.path, source.syntax_error.span, SYNTAX_ERROR.severity)
        if source.notebook is not None:
            finding = in_cells(finding, source.notebook.joined)
        analysis.findings.append(finding)
    return analysis


def unreadable_analysis(error: OSError, config: Config | None = None) -> Analysis:
    """The TFI900 finding for a file or folder that could not be read."""
    path = str(Path(error.filename))
    analysis = Analysis(path=path)
    what = "folder" if isinstance(error, NotADirectoryError) or os.path.isdir(path) else "file"
    if config is None or config.enabled(UNREADABLE.code):
        analysis.findings.append(Finding(
            UNREADABLE.code, UNREADABLE.name,
            f"cannot read this {what}: {error.strerror or error}; nothing in it was checked",
            path, Span(1, 0, 1, 0), UNREADABLE.severity))
    return analysis


def run_rules(module: ModuleContext, limit: int | None = None) -> Analysis:
    return finish(find(module, limit))


def find(module: ModuleContext, limit: int | None = None) -> Analysis:
    """The rules' findings in the module's own lines and order (see `finish`); with a
    `module.focus`, only those in the focused statements."""
    analysis = Analysis(path=module.path, module=module)
    if not module.relevant:
        return analysis
    error = module.graph.build()
    if error:
        analysis.errors.append(error)
    config = module.project.config.for_file(_relative(module.path, module.project.root))
    chosen = [rule for rule in rules.RULES
              if rule.check is not None and config.enabled(rule.code, rule.default)]
    _run(module, chosen, analysis, limit)
    _leave_out_caught_failures(module, chosen, analysis)
    if module.runs_eagerly is not None or module.eager_classes or module.untraced:
        _leave_out_graph_only(module, chosen, analysis)
    if module.tf1_graph_code is not None:
        _leave_out_tracing_only(module, chosen, analysis)
    else:
        _leave_out_what_a_failed_trace_hides(module, chosen, analysis)
    never_runs = (module.superseded or module.unimportable) if analysis.findings else None
    if never_runs:
        analysis.notes.append(f"{module.path}: {len(analysis.findings)} finding(s) left out: "
                              f"{never_runs}")
        analysis.findings = []
    if module.keras.assumed and any(rule.flavor_dependent for rule in chosen):
        _say_what_the_flavor_changed(module, chosen, analysis, limit)
    return analysis


def _run(module: ModuleContext, chosen: list[rules.Rule], analysis: Analysis,
         limit: int | None) -> None:
    focused = module.in_focus
    for rule in chosen:
        assert rule.check is not None
        try:
            hits = 0
            for hit in itertools.islice(rule.check(module), limit):
                hits += 1
                span = hit.target if isinstance(hit.target, Span) else module.span(hit.target)
                if module.source.is_suppressed(span.line, rule.code) or not focused(span.line):
                    continue
                analysis.findings.append(_one_line(Finding(
                    rule.code, rule.name, hit.message, module.path, span, rule.severity,
                    hit.fix, hit.related, detail=hit.detail, help=hit.help)))
            if hits == limit:
                analysis.notes.append(f"{rule.code}: only the first {limit} findings in "
                                      f"{module.path} are shown")
        except (RecursionError, Exception) as error:  # one broken rule must not stop the rest
            analysis.errors.append(
                f"{rule.code} crashed on {module.path}: {type(error).__name__}: {error}")


def _one_line(finding: Finding) -> Finding:
    """The finding with its message, fix title and related notes on one line each, whatever
    source a rule quoted in them."""
    fix = finding.fix
    if fix is not None:
        fix = dataclasses.replace(fix, description=one_line(fix.description))
    return dataclasses.replace(
        finding, message=one_line(finding.message), help=one_line(finding.help), fix=fix,
        related=tuple(dataclasses.replace(r, message=one_line(r.message))
                      for r in finding.related))


# what a conversion of a symbolic tensor raises while tracing (`.numpy()`: AttributeError,
# NumPy: NotImplementedError, `int`/`bool`/`len`: TypeError or its OperatorNotAllowedInGraphError)
CAUGHT_BY = frozenset({"Exception", "BaseException", "AttributeError", "NotImplementedError",
                       "TypeError", "OperatorNotAllowedInGraphError"})


def _leave_out_caught_failures(module: ModuleContext, chosen: list[rules.Rule],
                               analysis: Analysis) -> None:
    """A failure while tracing (a finding of a rule that `fails_tracing`) in the body of a
    `try` whose handler catches it and goes on (`try: n = int(x.numpy()) except Exception:
    n = None`, a bare `except:`) is the code's own probe for eager mode, with a fallback for
    a graph: nothing fails. A handler that raises again does not count."""
    failing = {rule.code for rule in chosen if rule.fails_tracing}
    if not any(finding.code in failing for finding in analysis.findings):
        return
    index = module.index
    tries = [*index.module_nodes.of(ast.Try),
             *(node for function in index.functions for node in function.nodes.of(ast.Try))]
    guarded = [(statement.body[0].lineno, statement.body[-1].end_lineno or 0)
               for statement in tries if any(_goes_on(handler) for handler in statement.handlers)]
    analysis.findings = [finding for finding in analysis.findings
                         if finding.code not in failing or not any(
                             first <= finding.span.line <= last for first, last in guarded)]


def _goes_on(handler: ast.ExceptHandler) -> bool:
    """The handler catches what a failed conversion raises and does not raise again."""
    caught = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(kind is None or (isinstance(kind, ast.Name) and kind.id in CAUGHT_BY)
               or (isinstance(kind, ast.Attribute) and kind.attr in CAUGHT_BY)
               for kind in caught) and not any(
        isinstance(statement, ast.Raise) for statement in handler.body)


def _leave_out_graph_only(module: ModuleContext, chosen: list[rules.Rule],
                          analysis: Analysis) -> None:
    """What goes wrong only in a graph does not happen where tf.function is off: anywhere in a
    package that turns it off at import, in what a project that trains eagerly uses and none
    of its tf.functions reaches (`trace_reach`), in the methods of a class whose `__init__` turns it
    off (no instance exists before), in a Keras class that fronts another runtime (its
    `call` runs an ONNX Runtime session or a TFLite interpreter) or fits on each call (its
    `call` runs optimizer steps), and in the helpers that get their graph context from such a
    class's methods. tf.data functions are still traced. A note says how many findings that
    left out, and why."""
    graph_only = {rule.code for rule in chosen if not rule.holds_eagerly}
    classes = [(cls.node.lineno, cls.node.end_lineno or cls.node.lineno, why)
               for cls, why in module.eager_classes]
    eager_methods = {f"{cls.name}.": why for cls, why in module.eager_classes}
    contexts = {function.qualname: context for function, context in module.graph.functions()}

    def caller_why(line: int) -> str | None:
        """Why a helper runs eagerly when the graph model reached it from an eager class's
        method (`haversine` called from such a class's `call`), a few calls up."""
        innermost = module.graph.innermost_at(line)
        context = innermost[1] if innermost is not None else None
        for _ in range(4):
            if context is None or context.caller is None:
                return None
            why = next((why for prefix, why in eager_methods.items()
                        if context.caller.startswith(prefix)), None)
            if why is not None:
                return why
            context = contexts.get(context.caller)
        return None

    def untraced_why(line: int) -> str | None:
        """Why code that the checker takes for traced by Keras (a `call`, a loss, what they
        call) runs eagerly in a project that trains eagerly: no tf.function reaches it. Not
        what a tf.function or a dataset traces itself, nor an eager call of one (a retrace)."""
        innermost = module.graph.innermost_at(line)
        if innermost is None or innermost[1].origin_kind in (ContextKind.TF_FUNCTION,
                                                             ContextKind.DATASET):
            return None
        return next((why for first, last, why in module.untraced if first <= line <= last),
                    None)

    def why_eager(line: int) -> str | None:
        if module.runs_eagerly is not None:
            return f"{module.runs_eagerly}, so its tf.functions and Keras steps run eagerly"
        return next((why for first, last, why in classes if first <= line <= last),
                    None) or untraced_why(line) or caller_why(line)

    kept, reasons = [], Counter[str]()
    for finding in analysis.findings:
        why = why_eager(finding.span.line) if finding.code in graph_only else None
        if why is None or module.graph.always_graph_at(finding.span.line):
            kept.append(finding)
        else:
            reasons[why] += 1
    analysis.findings = kept
    for why, left_out in reasons.items():
        analysis.notes.append(
            f"{module.path}: {left_out} finding(s) that hold only in a graph left out: "
            f"{why} (tf.data functions are still traced)")


def _leave_out_tracing_only(module: ModuleContext, chosen: list[rules.Rule],
                            analysis: Analysis) -> None:
    """TensorFlow 1.x graph code builds its graph once and runs it in a session: what goes
    wrong only under TF 2's tracing (a side effect once per trace, a layer per call, a
    retrace) does not apply. A note says how many findings that left out, and why."""
    tracing_only = {rule.code for rule in chosen if not rule.holds_in_tf1}
    kept = [f for f in analysis.findings if f.code not in tracing_only]
    left_out = len(analysis.findings) - len(kept)
    analysis.findings = kept
    if left_out:
        analysis.notes.append(f"{module.path}: {left_out} finding(s) about TF 2's tracing left "
                              f"out: {module.tf1_graph_code}")


def _leave_out_what_a_failed_trace_hides(module: ModuleContext, chosen: list[rules.Rule],
                                         analysis: Analysis) -> None:
    """A graph function that raises while TensorFlow traces it (a finding of a rule that
    `fails_tracing`: `.numpy()` of a symbolic tensor, `len` of one...) never runs in a graph
    until that is fixed, so what else holds only in a graph there (a side effect once per
    trace, an unrolled loop) cannot happen yet; often the function was written to run eagerly,
    and such findings only repeat the first. They are left out, the failures kept, and the
    function's first failure says which were held back (in its detail, not a note: the
    function is in one top-level statement, so an edit elsewhere keeps all of this)."""
    failing = {rule.code for rule in chosen if rule.fails_tracing}
    hidden = {rule.code for rule in chosen if not rule.holds_eagerly} - failing

    def graph_function(finding: Finding, codes: set[str]) -> FunctionInfo | None:
        innermost = module.graph.innermost_at(finding.span.line) if (
            finding.code in codes) else None
        return None if innermost is None else innermost[0]

    first: dict[FunctionInfo, Finding] = {}  # a graph function that fails: its first failure
    for finding in sorted(analysis.findings, key=Finding.sort_key):
        function = graph_function(finding, failing)
        if function is not None:
            first.setdefault(function, finding)
    held_back: dict[FunctionInfo, list[str]] = {}
    kept = []
    for finding in analysis.findings:
        function = graph_function(finding, hidden)
        if function is not None and function in first:
            held_back.setdefault(function, []).append(finding.code)
        else:
            kept.append(finding)
    says = {id(first[function]): dataclasses.replace(first[function], detail=(
        f"{first[function].detail}; until this is fixed `{function.qualname or function.name}` "
        f"cannot be traced, so {len(codes)} other finding(s) there that hold only in a graph "
        f"({', '.join(sorted(set(codes)))}) are held back").lstrip("; ")) for function, codes
        in held_back.items()}
    analysis.findings = [says.get(id(finding), finding) for finding in kept]


# graph code whose conversion and arguments differ between the Kerases
KERAS_KINDS = {ContextKind.KERAS_CALL, ContextKind.KERAS_STEP, ContextKind.LOSS,
               ContextKind.METRIC}


def _say_what_the_flavor_changed(module: ModuleContext, chosen: list[rules.Rule],
                                 analysis: Analysis, limit: int | None) -> None:
    """Nothing says which Keras the file runs on, and one was assumed: the findings that hold
    only on it say so, and a note counts those that would hold only on the other (whole-file
    analyses: the rules run again for the other Keras, where what they find depends on it)."""
    keras = module.keras
    if not module.mentions("keras", "Keras") and not any(
            KERAS_KINDS & {context.kind, context.root_kind}
            for context in module.graph.contexts.values()):
        return  # no Keras code here: the flavour changes nothing
    dependent = {rule.code for rule in chosen if rule.flavor_dependent}
    mine = {(f.code, f.span) for f in analysis.findings if f.code in dependent}
    theirs: set[tuple[str, Span]] = set()
    other: Flavor = "2" if keras.flavor == "3" else "3"
    if module.focus is None:
        alternative = ModuleContext(module.source, module.project, module.seeds,
                                    dataclasses.replace(keras, flavor=other))
        alternative.graph.build()
        compared = Analysis(path=module.path)
        _run(alternative, [rule for rule in chosen if rule.flavor_dependent], compared, limit)
        theirs = {(f.code, f.span) for f in compared.findings}
    assumption = f"Keras {keras.flavor} assumed: {keras.reason}"
    only_mine = mine - theirs
    analysis.findings = [
        dataclasses.replace(f, message=f"{f.message} (Keras {keras.flavor} assumed)",
                            detail=f"{f.detail} ({assumption})".lstrip())
        if (f.code, f.span) in only_mine else f for f in analysis.findings]
    dropped = len(theirs - mine)
    if only_mine or dropped:
        counts = [f"{len(only_mine)} finding(s) hold only on it"] if only_mine else []
        counts += [f"{dropped} more would be reported on Keras {other}"] if dropped else []
        analysis.notes.append(f"{module.path}: {assumption}; {', '.join(counts)} (set `keras` "
                              "in [tool.tf-insight], or --keras, to say which)")


def finish(analysis: Analysis) -> Analysis:
    """Findings placed in their notebook cells, and in order."""
    notebook = analysis.module.source.notebook if analysis.module is not None else None
    if notebook is not None:
        analysis.findings = [in_cells(finding, notebook.joined) for finding in analysis.findings]
    analysis.findings.sort(key=Finding.sort_key)
    return analysis


def _relative(path: str, root: Path | None) -> Path:
    """A file's path as `per-file-ignores` patterns see it: relative to its project."""
    file = Path(path)
    if root is not None:
        with contextlib.suppress(ValueError, OSError):
            return file.resolve().relative_to(root.resolve())
    return file


def check_paths(paths: Iterable[Path], project: Project,
                context: Iterable[Path] = ()) -> Iterator[Analysis]:
    """Analyse every Python file under `paths` that is part of the project (`discovery`); the
    files of `context` (their importers, see `importers.importers_of`) are modelled for the
    graph contexts they give, but not reported
    (`tf_insight.check.parallel.check_paths`: the same over several processes).

    Graph contexts cross modules (a tf.function in a.py calls a helper in b.py), so the graph
    models are built first and the calls they make into other workspace modules are learnt;
    only modules that receive new contexts are modelled again. Each file is parsed once.

    Every tree and index stays alive until the end, so each is frozen out of the cyclic
    garbage collector as soon as it is made: its full collections re-scanned them all, and
    took half the time of a large check. Young objects (mostly the walks' short-lived ones)
    are collected ten times less often meanwhile.
    """
    files, reported, unreadable = files_to_check(paths, project, context)
    yield from unreadable
    yield from check_files(files, reported, project)


def files_to_check(paths: Iterable[Path], project: Project, context: Iterable[Path]
                   ) -> tuple[list[Path], set[str], list[Analysis]]:
    """The files to read (those under `paths`, then the `context` files), the paths of those
    to report, and the analyses of folders that could not be listed."""
    unreadable: list[OSError] = []
    checked = list(dict.fromkeys(iter_python_files(paths, project.config, unreadable)))
    reported = {str(path) for path in checked}
    files = [*checked, *(p for p in context if str(p) not in reported)]
    return files, reported, [unreadable_analysis(error, project.config) for error in unreadable]


def check_files(files: list[Path], reported: set[str], project: Project) -> Iterator[Analysis]:
    """The serial check of `check_paths`: read, model in rounds, run the rules."""
    with fewer_collections():
        modules, analyses = read_modules(files, reported, project)
        yield from analyses
        changed = set(modules)
        for _ in range(MODEL_ROUNDS):
            for name, calls in build_models(modules, changed):
                project.add_seeds(name, calls)
            changed = reseed(modules, project)
            if not changed:
                break
        for name, module in modules.items():
            if name in reported:
                yield run_rules(module)


MODEL_ROUNDS = 3  # call chains through more modules than this are rare


@contextlib.contextmanager
def fewer_collections() -> Iterator[None]:
    """Young objects collected ten times less often; what `read_modules` froze is collectable
    again at the end (see `check_paths`)."""
    threshold = gc.get_threshold()
    gc.set_threshold(10 * threshold[0], *threshold[1:])
    try:
        yield
    finally:
        gc.unfreeze()
        gc.set_threshold(*threshold)


def read_modules(files: Iterable[Path], reported: set[str], project: Project
                 ) -> tuple[dict[str, ModuleContext], list[Analysis]]:
    """The modules of `files` (by path, in order), and the analyses of reported files that
    could not be read or parsed."""
    sources: list[SourceFile] = []
    analyses: list[Analysis] = []
    for path in files:
        try:
            sources.append(SourceFile.read(path, project.config.max_file_size))
        except OSError as error:
            if str(path) in reported:
                analyses.append(unreadable_analysis(error, project.config))
        gc.freeze()
    modules: dict[str, ModuleContext] = {}
    for source in sources:
        if source.tree is None:
            if source.path in reported:
                analyses.append(_syntax_error(source, project))
        else:
            modules[source.path] = ModuleContext(source, project)
            gc.freeze()
    return modules, analyses


def build_models(modules: dict[str, ModuleContext], changed: set[str]
                 ) -> Iterator[tuple[str, list[CrossModuleCall]]]:
    """Build the graph models of the `changed` modules: the calls each makes into other
    modules of the workspace (what `Project.add_seeds` learns from)."""
    for name in modules:
        module = modules[name]
        if name in changed and module.relevant and not module.graph.build():
            yield name, module.graph.outgoing


def reseed(modules: dict[str, ModuleContext], project: Project) -> set[str]:
    """Remake the modules whose graph contexts from other modules changed; their names."""
    seeded: set[str] = set()
    for name, module in modules.items():
        seeds = project.seeds_for(name)
        if seeds != module.seeds:
            modules[name] = ModuleContext(module.source, project, seeds)
            seeded.add(name)
    return seeded


def check_file(path: str | os.PathLike[str], config: Config | None = None) -> list[Finding]:
    """Findings for one file (settings from its project's pyproject.toml unless given)."""
    file = Path(path)
    from tf_insight import config as config_module
    from tf_insight.check.project import project_root

    project = Project(config=config or config_module.load(project_root(file)), root=file.parent)
    source = SourceFile.read(file, project.config.max_file_size)
    with paused_gc():
        return analyze_parsed(source, project).findings


