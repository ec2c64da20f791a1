"""Code actions for the diagnostics under the cursor: the rule's safe fix, "add `# noqa`",
and "explain this rule" (the `tfInsight.showRule` command)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from lsprotocol import types

from tf_insight.check import NOQA
from tf_insight_server import conversions as conv
from tf_insight_server.commands import SHOW_RULE
from tf_insight_server.diagnostics import Analysed


def code_actions(
    analysed: Analysed,
    uri: str,
    range_: types.Range,
    encoding: str,
    version_of: Callable[[str], int | None],
    document_changes: bool,
) -> list[types.CodeAction]:
    actions: list[types.CodeAction] = []
    explained: set[str] = set()
    result = analysed.result
    lines = result.snapshot.lines_of(uri)
    placer = conv.Placer(result.snapshot, encoding)
    for diagnostic in analysed.diagnostics.get(uri, []):
        if not _overlaps(diagnostic.range, range_):
            continue
        data: dict[str, Any] = diagnostic.data if isinstance(diagnostic.data, dict) else {}
        code = str(diagnostic.code)
        number = data.get("finding")
        finding = (result.findings[number] if isinstance(number, int)
                   and 0 <= number < len(result.findings) else None)
        fix = finding.fix if finding is not None and finding.code == code else None
        if fix is not None:
            edits = conv.fix_edits(fix, placer)
            actions.append(types.CodeAction(
                title=f"{code}: {fix.description}",
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[diagnostic],
                is_preferred=True,
                edit=workspace_edit(edits, version_of, document_changes),
            ))
        noqa = noqa_edit(lines, diagnostic.range.start.line, code, encoding)
        if noqa is not None:
            actions.append(types.CodeAction(
                title=f"Add `# noqa: {code}`",
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[diagnostic],
                edit=workspace_edit({uri: [noqa]}, version_of, document_changes),
            ))
        if code not in explained:
            explained.add(code)
            actions.append(types.CodeAction(
                title=f"Explain rule {code}",
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[diagnostic],
                command=types.Command(title=f"Explain rule {code}", command=SHOW_RULE,
                                      arguments=[code]),
            ))
    return actions


def noqa_edit(lines: Sequence[str], line: int, code: str, encoding: str) -> types.TextEdit | None:
    """Insert `  # noqa: CODE` at the end of the line, or add the code to its noqa comment.
    None when the line already silences it."""
    if not 0 <= line < len(lines):
        return None
    text = lines[line]
    match = NOQA.search(text)
    if match is not None:
        codes = match.group("codes")
        if codes is None:
            return None  # a bare noqa comment silences every code already
        if code.upper() in {c.upper() for c in re.split(r"[\s,]+", codes)}:
            return None
        at = conv.to_client_column(text, match.end("codes"), encoding)
        new_text = f", {code}"
    else:
        stripped = len(text.rstrip())
        at = conv.to_client_column(text, stripped, encoding)
        end = conv.to_client_column(text, len(text), encoding)
        position = types.Position(line=line, character=at)
        return types.TextEdit(range=types.Range(start=position,
                                                end=types.Position(line=line, character=end)),
                              new_text=f"  # noqa: {code}")
    position = types.Position(line=line, character=at)
    return types.TextEdit(range=types.Range(start=position, end=position), new_text=new_text)


def workspace_edit(
    edits: dict[str, list[types.TextEdit]],
    version_of: Callable[[str], int | None],
    document_changes: bool,
) -> types.WorkspaceEdit:
    if not document_changes:
        return types.WorkspaceEdit(changes=edits)
    return types.WorkspaceEdit(document_changes=[
        types.TextDocumentEdit(
            text_document=types.OptionalVersionedTextDocumentIdentifier(
                uri=uri, version=version_of(uri)),
            edits=list(uri_edits),
        )
        for uri, uri_edits in edits.items()
    ])


def _overlaps(a: types.Range, b: types.Range) -> bool:
    a_start, a_end = (a.start.line, a.start.character), (a.end.line, a.end.character)
    b_start, b_end = (b.start.line, b.start.character), (b.end.line, b.end.character)
    return a_start <= b_end and b_start <= a_end
