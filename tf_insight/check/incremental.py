"""After an edit, reuse the findings of the top-level statements the edit cannot have changed.

An editor analyses a file at every keystroke, and a keystroke changes one top-level statement
(`SourceFile.edited` parses only that one again and reuses the other statements' nodes). The
rules look at the whole module, but what they report in one top-level statement (a *unit*)
depends on the other units only through:

- their **outline**: everything outside function bodies (module-level code, class bodies,
  signatures, decorators), and their imports wherever they are (one import map serves the
  whole module);
- **references**: a function reads the bodies of the helpers it calls (a NumPy conversion, a
  mode check) and of the graph functions that call it (the tensors they pass), a few calls
  away either way; cycles of tf.functions are found through them too;
- the **graph contexts** the model gives their functions;
- what rules **declare they read** of other units' function bodies (`rules.Reads`: mutations
  of module-level names, calls that bind a name any function looks up); a `global` statement
  binds a module-level name, so the functions that read it are neighbours of the one that
  assigns it;
- the settings, the Keras flavour, the contexts other modules give (seeds), whether the
  project runs its Keras code eagerly, the files read from disk.

So a unit's findings from the last analysis are reused when no unit's *interface* changed (its
outline, the module-level names its code references, what rules read of its bodies), the unit
is more than `REACH` references away from every changed unit (either way), its functions' graph
contexts and its neighbours' are the same, it did not move or has no findings, and the units its
findings point into (related information, fixes) neither changed nor moved. The rules then look
only at the other units (`ModuleContext.focus`). tests/test_source_edited.py checks that an
edited file gets exactly the findings of a fresh analysis, for random edits of every fixture.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from tf_insight.check import rules
from tf_insight.check.analyzer import Analysis, analyze_parsed, find, finish, paused_gc
from tf_insight.check.context import ModuleContext
from tf_insight.check.graph_model import GraphContext, GraphFact
from tf_insight.check.index import FunctionInfo, ModuleIndex, self_attribute
from tf_insight.check.project import Project, changed_on_disk
from tf_insight.check.source import SourceFile
from tf_insight.findings import Finding, Span

# How many references from a changed unit its neighbours are analysed again, either way:
# helpers calling helpers are followed three deep (mode checks, tensor arguments), and a
# module-level name bound to a function (`step = tf.function(train)`) adds one.
REACH = 4
# Past this share of the units, everything is analysed (the bookkeeping would cost more).
MOST = 0.6

Interface = tuple[str, tuple[str, ...]]


@dataclass
class Unit:
    """What an analysis left of one top-level statement for the next version."""

    statement: ast.stmt  # kept alive: its id is the unit's key
    part: ModuleIndex  # its index (its functions, their scopes)
    first_line: int
    moved: bool  # to another line since the last analysis
    binds: frozenset[str]  # the module-level names it binds (not by import)
    loads: frozenset[str]  # the names its code reads
    findings: list[Finding] = field(default_factory=list)
    touches: frozenset[int] = frozenset()  # the other units its findings point into
    interface: Interface | None = None  # made on first need


@dataclass
class Memo:
    """What the analysis of one version of a file leaves for the next."""

    key: tuple[object, ...]  # settings, Keras flavour, seeds, eager: all void if it changes
    module: ModuleContext
    units: dict[int, Unit]  # by statement id
    contexts: dict[FunctionInfo, tuple[object, ...]]  # as compared (`_compared`)
    facts: dict[FunctionInfo, tuple[GraphFact, int | None]]  # and the unit its origin is in
    stamps: dict[str, tuple[int, int]]  # the other files read, as they were
    complete: bool  # False: a limit or a crash cut findings short; the next analysis is whole


def analyze(source: SourceFile, project: Project, previous: Memo | None = None,
            limit: int | None = None) -> tuple[Analysis, Memo | None]:
    """The analysis of an edited file (`SourceFile.edited`) and what it leaves for its next
    version: the findings of a fresh analysis, the units the edit left alone reused from
    `previous` (the memo of the version it was edited from)."""
    if source.tree is None:
        return analyze_parsed(source, project, limit), previous  # a syntax error: keep it
    with paused_gc():
        module = ModuleContext(source, project, project.seeds_for(source.path))
        key = (project.config, module.flavor, module.seeds, module.runs_eagerly,
               tuple(module.untraced))
        units = _units(module, previous)
        edit = _Edit.of(module, units, previous, key) if previous is not None else None
        if edit is not None:
            module.reuse_model(edit.previous.module, edit.kept_model_parts())
        model_error = module.graph.build()  # (`find` asks again: the model is kept)
        focus = edit.focus() if edit is not None else None
        module.focus = focus
        analysis = find(module, limit)
        reused = [] if focus is None else [finding for unit_id, unit in units.items()
                                           if unit_id not in focus for finding in unit.findings]
        if focus is not None and (analysis.errors or analysis.notes
                                  or _at_limit([*analysis.findings, *reused], limit)):
            # findings were cut short (a crash, a rule's limit here or with those reused):
            # the ones found and the ones reused are no match
            module.focus = focus = None
            reused = []
            analysis = find(module, limit)
        module.focus = None
        if model_error:
            analysis.errors.append(model_error)
        analysis.reanalysed = None if focus is None else len(focus)
        _record(module, units, focus, analysis.findings)
        analysis.findings = [*analysis.findings, *reused]
        facts = _graph_facts(module, units, focus, previous)
        analysis.graph_facts = [fact for fact, _origin in facts.values()]
        memo = Memo(key, module, units,
                    {function: _compared(context) for function, context in module.graph.contexts.items()},
                    facts, dict(project.stamps),
                    complete=not analysis.errors and not analysis.notes)
        return finish(analysis), memo


def _record(module: ModuleContext, units: dict[int, Unit], focus: frozenset[int] | None,
            found: list[Finding]) -> None:
    """Keep the findings of the units analysed (all, or the focus) with them, and the other
    units each points into, for the next version."""
    by_unit: dict[int, list[Finding]] = {}
    for finding in found:
        by_unit.setdefault(id(module.unit_of(finding.span.line)), []).append(finding)
    for unit_id, unit in units.items():
        if focus is None or unit_id in focus:
            unit.findings = by_unit.get(unit_id, [])
            unit.touches = frozenset(other for finding in unit.findings
                                     for other in _touched(module, finding) if other != unit_id)


def _units(module: ModuleContext, previous: Memo | None) -> dict[int, Unit]:
    """A unit for each top-level statement: carried over from `previous` where the statement
    is the same (moved to its new line), new otherwise."""
    parts = module.index.parts
    assert parts is not None, "an edited file's index is joined from its statements'"
    units: dict[int, Unit] = {}
    for statement, part, start in zip(module.tree.body, parts, module.unit_starts, strict=True):
        old = previous.units.get(id(statement)) if previous is not None else None
        if old is not None:
            units[id(statement)] = replace(old, part=part, first_line=start,
                                           moved=start != old.first_line)
        else:
            units[id(statement)] = Unit(statement, part, start, False, _binds(part), _loads(part))
    return units


def _graph_facts(module: ModuleContext, units: dict[int, Unit], focus: frozenset[int] | None,
                 previous: Memo | None) -> dict[FunctionInfo, tuple[GraphFact, int | None]]:
    """Each graph function's fact (for hovers) and the unit its origin is in: the last one's
    where its unit is reused and neither it nor the origin's unit moved."""
    facts: dict[FunctionInfo, tuple[GraphFact, int | None]] = {}
    for function, context in module.graph.contexts.items():
        unit = id(module.unit_of(function.node.lineno))
        kept = (previous.facts.get(function)
                if previous is not None and focus is not None and unit not in focus else None)
        if kept is not None and not units[unit].moved and (
                kept[1] is None or (kept[1] in units and not units[kept[1]].moved)):
            facts[function] = kept
        else:
            origin = context.origin
            facts[function] = (module.graph.fact(function, context),
                               None if origin is None else id(module.unit_of(origin.line)))
    return facts


class _Edit:
    """An edit the last analysis (`previous`) can serve: the same settings and files, and no
    unit's interface changed."""

    def __init__(self, module: ModuleContext, units: dict[int, Unit], previous: Memo,
                 new: list[Unit], gone: list[Unit]) -> None:
        self.module, self.units, self.previous = module, units, previous
        self.new, self.gone = new, gone  # the units it changed: as they are, as they were
        self.references = _References(units)

    @classmethod
    def of(cls, module: ModuleContext, units: dict[int, Unit], previous: Memo,
           key: tuple[object, ...]) -> _Edit | None:
        if key != previous.key or not previous.complete or changed_on_disk(previous.stamps):
            return None
        new = [unit for unit in units.values() if id(unit.statement) not in previous.units]
        gone = [unit for unit_id, unit in previous.units.items() if unit_id not in units]
        if len(new) == len(units) or sum(_lines(unit) for unit in new) > MOST * len(
                module.source.lines):
            return None  # nothing, or little, in common: the bookkeeping would cost more
        reads = _reads(module)
        bound = frozenset().union(*(unit.binds for unit in units.values()))
        if [(_interface(previous.module, unit, reads), _references(unit, bound)) for unit in gone] \
                != [(_interface(module, unit, reads), _references(unit, bound)) for unit in new]:
            return None  # what the other units may read of them changed
        return cls(module, units, previous, new, gone)

    def kept_model_parts(self) -> list[ModuleIndex]:
        """The units whose part of the graph model the last analysis worked out still
        holds: those the edit left alone that reference none it changed (what they call,
        subclass or decorate with is the same)."""
        stale = self.references.referencing([*self.new, *self.gone])
        return [unit.part for unit_id, unit in self.units.items()
                if unit_id in self.previous.units and unit_id not in stale]

    def focus(self) -> frozenset[int] | None:
        """The units to analyse again (statement ids), None for all."""
        units, previous, references = self.units, self.previous, self.references
        dirty = {id(unit.statement) for unit in self.new}
        dirty |= references.around([*self.new, *self.gone])
        now = self.module.graph.contexts
        changed_contexts = [
            unit for unit_id, unit in units.items() if unit_id not in dirty and any(
                _compared(now.get(function)) != previous.contexts.get(function, ())
                for function in unit.part.functions)]
        dirty |= {id(unit.statement) for unit in changed_contexts}
        dirty |= references.around(changed_contexts)
        for unit_id, unit in units.items():
            if unit.findings and (unit.moved or any(
                    other not in units or units[other].moved for other in unit.touches)):
                dirty.add(unit_id)
        if len(dirty) > MOST * len(units):
            return None
        return frozenset(dirty)


class _References:
    """Which units reference which: a unit references another when its code reads a
    module-level name the other binds (calls a function it defines, subclasses its class)."""

    def __init__(self, units: dict[int, Unit]) -> None:
        self.units = units
        self.binders: dict[str, set[int]] = {}
        self.readers: dict[str, set[int]] = {}
        for unit_id, unit in units.items():
            for name in unit.binds:
                self.binders.setdefault(name, set()).add(unit_id)
            for name in unit.loads:
                self.readers.setdefault(name, set()).add(unit_id)

    def referencing(self, units: Iterable[Unit]) -> set[int]:
        """The units that reference one of `units`."""
        return {unit_id for unit in units for unit_id in self._referencing(unit)}

    def around(self, start: Iterable[Unit]) -> set[int]:
        """The units within `REACH` references of `start`: those it references, those they
        reference...; and those that reference it, and so on."""
        found: set[int] = set()
        start = list(start)
        for follow in (self._referenced, self._referencing):
            frontier = start
            for _ in range(REACH):
                reached = {unit_id for unit in frontier for unit_id in follow(unit)} - found
                found |= reached
                frontier = [self.units[unit_id] for unit_id in reached]
        return found

    def _referenced(self, unit: Unit) -> Iterable[int]:
        return (unit_id for name in unit.loads for unit_id in self.binders.get(name, ()))

    def _referencing(self, unit: Unit) -> Iterable[int]:
        return (unit_id for name in unit.binds for unit_id in self.readers.get(name, ()))


def _at_limit(findings: list[Finding], limit: int | None) -> bool:
    """Whether a rule has `limit` findings (the found and the reused together)."""
    if limit is None:
        return False
    counts = Counter(finding.code for finding in findings)
    return any(count >= limit for count in counts.values())


# ---- what a unit binds, reads and shows the others ------------------------------------------


def _binds(part: ModuleIndex) -> frozenset[str]:
    names = {node.id for node in part.module_nodes.of(ast.Name)
             if node.ctx.__class__ is not ast.Load}
    names.update(function.name for function in part.functions
                 if function.outer is None and function.cls is None)
    names.update(cls.name for cls in part.classes if cls.outer is None)
    for function in part.functions:  # `global step` in a function binds a module-level name
        names.update(name for node in function.nodes.of(ast.Global) for name in node.names)
    return frozenset(names)


def _loads(part: ModuleIndex) -> frozenset[str]:
    """Every name a unit's code reads, its functions' locals included: a local named like a
    module-level function does not stop the model from taking a call of it for one."""
    names = {node.id for node in part.module_nodes.of(ast.Name)
             if node.ctx.__class__ is ast.Load}
    for function in part.functions:
        names.update(node.id for node in function.nodes.of(ast.Name)
                     if node.ctx.__class__ is ast.Load)
    return frozenset(names)


def _reads(module: ModuleContext) -> rules.Reads:
    config = module.project.config
    found = rules.Reads()
    for rule in rules.RULES:
        if config.enabled(rule.code, rule.default):
            found |= rule.reads
    return found


def _interface(module: ModuleContext, unit: Unit, reads: rules.Reads) -> Interface:
    """What other units may read of a unit besides its references: its outline (its code
    outside function bodies, without positions) and what `reads` says of its function bodies."""
    if unit.interface is None:
        outline: list[str] = []
        _outline(unit.statement, outline)
        unit.interface = ("".join(outline), tuple(_exports(module, unit.part, reads)))
    return unit.interface


def _references(unit: Unit, bound: frozenset[str]) -> list[str]:
    """The module-level names of other units a unit's code reads (imports tie it to no unit)."""
    return sorted(unit.loads & bound - unit.binds)


def _outline(node: ast.AST, out: list[str]) -> None:
    """`ast.dump` without positions and without function bodies."""
    out.append(node.__class__.__name__)
    out.append("(")
    skip_body = isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
    for name in node._fields:
        if skip_body and name == "body":
            continue
        value = getattr(node, name, None)
        if isinstance(value, ast.AST):
            _outline(value, out)
        elif isinstance(value, list):
            out.append("[")
            for item in value:
                if isinstance(item, ast.AST):
                    _outline(item, out)
                else:
                    out.append(repr(item))
                out.append(",")
            out.append("]")
        else:
            out.append(repr(value))
        out.append(",")
    out.append(")")


def _exports(module: ModuleContext, part: ModuleIndex, reads: rules.Reads) -> list[str]:
    """What the others read of a unit's function bodies, as position-free dumps: its imports
    (the import map is the module's, whatever scope imports), and what `reads` says."""
    found = [ast.dump(node) for node in part.imports]
    if reads.mutations:
        found += [ast.dump(call) for call, scope in part.calls_named(set(reads.mutations))
                  if scope is not None and isinstance(call.func, ast.Attribute)
                  and isinstance(call.func.value, ast.Name)
                  and call.func.value.id not in scope.local_names]
        for function in part.functions:
            own = function.local_names
            for statement in function.nodes.of(ast.Assign, ast.AugAssign, ast.AnnAssign,
                                               ast.Delete):
                targets = (statement.targets if isinstance(statement, ast.Assign | ast.Delete)
                           else [statement.target])
                if any(isinstance(t, ast.Subscript | ast.Attribute) and isinstance(t.value, ast.Name)
                       and t.value.id not in own for t in targets):
                    found.append(ast.dump(statement))
    if reads.attribute_stores:
        found += [ast.dump(statement) for function in part.functions
                  for statement in function.nodes.of(ast.Assign, ast.AugAssign)
                  if any(_store_on_other(t) for t in (
                      statement.targets if isinstance(statement, ast.Assign)
                      else [statement.target]))]
    if reads.model_reads:
        found += [ast.dump(node) for function in part.functions
                  for node in function.nodes.of(ast.Attribute)
                  if self_attribute(node.value) == "model"]
    if reads.calls:  # the calls rules look up by these names (`ModuleContext.calls_named`)
        found += [ast.dump(part.statement_of(call))
                  for call, scope in part.calls_named(module.callee_names(*reads.calls))
                  if scope is not None]
    return found


def _store_on_other(target: ast.AST) -> bool:
    """`x.attr = ...` where `x` is not `self`/`cls`."""
    return isinstance(target, ast.Attribute) and not (
        isinstance(target.value, ast.Name) and target.value.id in ("self", "cls"))


def _lines(unit: Unit) -> int:
    return (unit.statement.end_lineno or unit.first_line) - unit.first_line + 1


# ---- findings by unit -------------------------------------------------------------------------


def _touched(module: ModuleContext, finding: Finding) -> set[int]:
    """The units a finding points into: its own, its related information's in this file, its
    fix's."""
    spans: list[Span] = [finding.span]
    spans += [item.span for item in finding.related if item.path == module.path]
    if finding.fix is not None:
        spans += [edit.span for edit in finding.fix.edits]
    return {id(module.unit_of(span.line)) for span in spans}


def _compared(context: GraphContext | None) -> tuple[object, ...]:
    """A graph context as incremental analysis compares it: without its origin, a position
    (findings that show it point into its unit, and are analysed again when it moves)."""
    if context is None:
        return ()
    return (context.kind, context.reason, context.autograph, context.always_graph,
            context.input_signature, context.reduce_retracing, context.root_kind,
            context.caller)
