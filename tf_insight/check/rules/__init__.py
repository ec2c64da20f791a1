"""The rule catalogue: one module per rule, `tfiNNN_<name>.py`, discovered in code order.

A rule module defines `CODE`, `NAME` (kebab-case, describing the pattern), `SEVERITY`, and
`check(ctx) -> Iterable[Hit]`, `DEFAULT = False` for an opt-in rule (reported only when its
code is selected by name), `FLAVOR_DEPENDENT = True` when what it finds depends on the
file's Keras (`ModuleContext.flavor`), and `HOLDS_EAGERLY = True` when what it finds is wrong
in eager execution too (reported in a package that turns tf.function off at import, and in a
class whose `__init__` does), `HOLDS_IN_TF1 = True` when it is wrong in TensorFlow 1.x graph
code too (`ModuleContext.tf1_graph_code`: other rules are about TF 2's tracing), and
`FAILS_TRACING = True` when what it finds raises while TensorFlow traces the function (the
analyzer then leaves out what else holds only in a graph there); its docstring *is* its documentation, in the sections
`## What it does`, `## Why is this bad?`, `## Example`, `## Use instead`, `## References`.
The same text feeds `tf-insight rule`, hovers, SARIF help and the README table.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property
from types import ModuleType

from tf_insight.check.context import ModuleContext
from tf_insight.findings import Fix, Related, Severity, Span

# Rule documentation (docs/rules.md, generated from the docstrings); anchors are the codes.
DOCS_URL = "https://github.com/tf-insight/tf-insight/blob/main/docs/rules.md#"
SECTIONS = ("What it does", "Why is this bad?", "Example", "Use instead", "References")


@dataclass(frozen=True)
class Hit:
    """What a rule's check yields; the analyzer turns it into a Finding. `message` is one line
    (what is wrong, where); `detail` says why it goes wrong when TensorFlow runs it, and `help`
    what to do instead (both shown in hovers and the full output, as ruff's fix titles)."""

    target: ast.AST | Span
    message: str
    fix: Fix | None = None
    related: tuple[Related, ...] = field(default=())
    detail: str = ""
    help: str = ""


Check = Callable[[ModuleContext], Iterable[Hit]]


@dataclass(frozen=True)
class Reads:
    """What a rule reads of the function bodies of other top-level statements than the one it
    reports in, besides what any rule may read there: the functions within a few calls of the
    one it reports on (helpers it calls, graph functions that call it) and the graph contexts.
    (Everything outside function bodies, the outline, may always be read, and so may what a
    function declared `global` assigns: it binds a module-level name.) A rule module
    declares it as `READS`; after an edit, `tf_insight.check.incremental` analyses a file's
    other statements again when what some rule reads of the edited one changed."""

    # calls of these methods on module-level names (`items.append(x)`), and item and attribute
    # stores on those names (`table[k] = v`, `del table[k]`, `config.lr = v`)
    mutations: frozenset[str] = frozenset()
    # the statements that call these (the last part of the name: `custom_gradient` for
    # `tf.custom_gradient(f)`, under any alias)
    calls: frozenset[str] = frozenset()
    # attribute stores on other objects than `self` (`callback.layer.rate = 0.1`)
    attribute_stores: bool = False
    # what methods read of `self.model` (a Keras callback's `self.model.last_batch`)
    model_reads: bool = False

    def __or__(self, other: Reads) -> Reads:
        return Reads(self.mutations | other.mutations, self.calls | other.calls,
                     self.attribute_stores or other.attribute_stores,
                     self.model_reads or other.model_reads)


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    severity: Severity
    doc: str
    check: Check | None  # None: reported by the analyzer itself (TFI000)
    reads: Reads = Reads()
    default: bool = True  # on unless deselected; False: only when selected by its code
    flavor_dependent: bool = False  # finds other things on Keras 2 than on Keras 3
    holds_eagerly: bool = False  # a hazard in eager execution too, not only in a graph
    holds_in_tf1: bool = False  # a hazard in TF 1.x graph code too, not only under tracing
    fails_tracing: bool = False  # raises while the function is traced

    @cached_property
    def sections(self) -> dict[str, str]:
        """The docstring's sections by heading; the text before the first heading is 'Title'."""
        parts = re.split(r"^## +(.+?)\s*$", self.doc, flags=re.M)
        found = {"Title": parts[0].strip()}
        for heading, body in zip(parts[1::2], parts[2::2], strict=True):
            found[heading.strip()] = body.strip()
        return found

    @property
    def title(self) -> str:
        return " ".join(self.sections["Title"].split()) or self.name

    @property
    def summary(self) -> str:
        return " ".join(self.sections.get("What it does", self.title).split())

    def code_example(self, section: str) -> str:
        """The python code block of a section (`Example` or `Use instead`)."""
        match = re.search(r"```python\n(.*?)```", self.sections.get(section, ""), flags=re.S)
        return match.group(1) if match else ""

    @property
    def url(self) -> str:
        return DOCS_URL + self.code.lower()

    def markdown(self, level: int = 1, brief: bool = False) -> str:
        """The rule's documentation in Markdown: the one rendering that `tf-insight rule`,
        SARIF's help, docs/rules.md, the editor's "Explain rule" and hovers show. `level` is
        the heading level of its title (sections one deeper); `brief` (hovers) keeps what it
        does, why and the fix, without the title."""
        out = [] if brief else [f"{'#' * level} {self.code} {self.name} ({self.severity.value})",
                                self.title]
        for heading, body in self.sections.items():
            if heading != "Title" and (not brief or heading in _BRIEF):
                out.append(f"{'#' * (level + 1)} {heading}\n\n{body}")
        out.append(f"[{self.code} documentation]({self.url})")
        return "\n\n".join(out)


_BRIEF = ("What it does", "Why is this bad?", "Use instead")


def _load(module: ModuleType) -> Rule:
    return Rule(
        code=module.CODE,
        name=module.NAME,
        severity=module.SEVERITY,
        doc=(module.__doc__ or "").strip(),
        check=getattr(module, "check", None),
        reads=getattr(module, "READS", Reads()),
        default=getattr(module, "DEFAULT", True),
        flavor_dependent=getattr(module, "FLAVOR_DEPENDENT", False),
        holds_eagerly=getattr(module, "HOLDS_EAGERLY", False),
        holds_in_tf1=getattr(module, "HOLDS_IN_TF1", False),
        fails_tracing=getattr(module, "FAILS_TRACING", False),
    )


def _discover() -> list[Rule]:
    rules = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if re.fullmatch(r"tfi\d{3}_\w+", info.name):
            rules.append(_load(importlib.import_module(f"{__name__}.{info.name}")))
    return rules


RULES: list[Rule] = _discover()
BY_CODE: dict[str, Rule] = {rule.code: rule for rule in RULES}
BY_NAME: dict[str, Rule] = {rule.name: rule for rule in RULES}


def get(code_or_name: str) -> Rule | None:
    return BY_CODE.get(code_or_name.upper()) or BY_NAME.get(code_or_name.lower())
