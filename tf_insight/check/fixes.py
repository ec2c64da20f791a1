"""Apply fixes to text (CLI `--fix`; the language server sends the same edits to the editor).

Lines are those the parser and the findings count (`source.split_lines`: only \\n, \\r\\n and
\\r end one), never `str.splitlines`'s, which also breaks at form feeds, U+2028 and other
separators and would put every edit after one of them in the wrong place."""

from __future__ import annotations

from collections.abc import Iterable

from tf_insight.check.source import line_starts
from tf_insight.findings import Edit, Fix, Span


def offset(starts: list[int], line: int, column: int) -> int:
    """Character offset of a (1-based line, 0-based column), given `line_starts` of the text."""
    return starts[min(line, len(starts)) - 1] + column


def apply_fixes(text: str, fixes: Iterable[Fix]) -> tuple[str, int]:
    """Apply non-overlapping fixes (later ones that overlap an applied one are skipped).
    Returns the new text and how many fixes were applied."""
    starts = line_starts(text)
    chosen: list[tuple[int, int, str]] = []
    applied = 0
    for fix in fixes:
        edits = [
            (offset(starts, e.span.line, e.span.column),
             offset(starts, e.span.end_line, e.span.end_column), e.new_text)
            for e in fix.edits
        ]
        if any(_overlap(edit, other) for edit in edits for other in chosen):
            continue  # also drops the same insertion offered by several findings
        chosen.extend(edits)
        applied += 1
    for start, end, new_text in sorted(chosen, reverse=True):
        text = text[:start] + new_text + text[end:]
    return text, applied


def replace(span: Span, new_text: str) -> Edit:
    return Edit(span, new_text)


def insert(line: int, column: int, new_text: str) -> Edit:
    return Edit(Span(line, column, line, column), new_text)


def _overlap(a: tuple[int, int, str], b: tuple[int, int, str]) -> bool:
    if a[0] < b[1] and b[0] < a[1]:
        return True
    # two edits at one point (an insertion and anything starting there) would interleave
    return a[0] == b[0] and (a[0] == a[1] or b[0] == b[1])
