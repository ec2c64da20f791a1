"""Hovers: a flagged range shows its rule's documentation; a graph function's name or decorator
(or the place that makes it a graph function: `compile(loss=...)`, `.map(...)`) shows whether
it runs in graph mode, and why."""

from __future__ import annotations

import re

from lsprotocol import types

from tf_insight import Finding
from tf_insight.check import GraphFact, rules
from tf_insight_server import conversions as conv
from tf_insight_server.analysis import Result


def hover(result: Result, uri: str, position: types.Position, encoding: str) -> types.Hover | None:
    where = conv.to_document_position(result.snapshot, uri, position, encoding)
    if where is None:
        return None
    line, column = where
    parts = [rule_markdown(f) for f in result.findings if conv.span_contains(f.span, line, column)]
    fact = graph_fact_at(result, line, column)
    if fact is not None:
        parts.append(graph_markdown(fact))
    if not parts:
        return None
    return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown,
                                                    value="\n\n---\n\n".join(parts)))


def graph_fact_at(result: Result, line: int, column: int) -> GraphFact | None:
    for fact in result.graph:
        if any(conv.span_contains(span, line, column) for span in fact.targets):
            return fact
    word = _word_at(result.snapshot.lines, line, column)
    if not word:
        return None
    for fact in result.graph:  # `compile(loss=my_loss)`, `ds.map(parse)`: the name passed
        short = fact.name.rsplit(".", 1)[-1]
        if (fact.origin is not None and short == word
                and conv.span_contains(fact.origin, line, column)):
            return fact
    return None


def _word_at(lines: list[str], line: int, column: int) -> str:
    if not 0 < line <= len(lines):
        return ""
    text = lines[line - 1]
    for match in re.finditer(r"[A-Za-z_][A-Za-z0-9_]*", text):
        if match.start() <= column <= match.end():
            return match.group(0)
    return ""


def rule_markdown(finding: Finding) -> str:
    rule = rules.get(finding.code)
    parts = [f"**{finding.code}** `{finding.name}` — {finding.message}"]
    if finding.detail:
        parts.append(f"Why: {finding.detail}.")
    if finding.help_text:
        parts.append(f"Fix: {finding.help_text}.")
    if rule is not None:
        parts.append(rule.markdown(level=3, brief=True))
    return "\n\n".join(parts)


def graph_markdown(fact: GraphFact) -> str:
    lines = [f"**`{fact.name}` runs in graph mode** because {fact.reason}."]
    lines.append(f"- context: `{fact.kind}`")
    lines.append("- AutoGraph: " + ("converts Python `if`/`for`/`while` on tensors"
                                    if fact.autograph else
                                    "**off** — Python control flow on tensors is not converted"))
    if fact.always_graph:
        lines.append("- always a graph: `tf.config.run_functions_eagerly(True)` does not change it")
    else:
        lines.append("- runs eagerly only under `tf.config.run_functions_eagerly(True)` "
                     "(or `run_eagerly=True` in `compile`)")
    lines.append("- Python side effects (`print`, appends, globals) happen once per trace, "
                 "not once per step")
    return "\n".join(lines)
