"""Every conversion between the core's positions and LSP's, in one place.

The core: 1-based lines, 0-based *character* columns (:class:`tf_insight.findings.Span`).
LSP: 0-based lines, columns in the negotiated position encoding (UTF-16 code units unless the
client offered something else at `initialize`). Lines are split the LSP way (`\\n`, `\\r\\n`,
`\\r` only), which is also how Python's tokenizer counts them.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from lsprotocol import types
from pygls.uris import from_fs_path, to_fs_path

from tf_insight.findings import Severity, Span
from tf_insight_server.documents import split_lines

__all__ = ["split_lines"]

UTF8 = types.PositionEncodingKind.Utf8.value
UTF16 = types.PositionEncodingKind.Utf16.value
UTF32 = types.PositionEncodingKind.Utf32.value


SEVERITY = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.INFO: types.DiagnosticSeverity.Information,
}


def encoding_name(encoding: object) -> str:
    value = getattr(encoding, "value", encoding)
    return value if value in (UTF8, UTF16, UTF32) else UTF16


def _units(text: str, encoding: str) -> int:
    if encoding == UTF32 or text.isascii():
        return len(text)
    if encoding == UTF8:
        return len(text.encode("utf-8"))
    return len(text.encode("utf-16-le")) // 2


def to_client_column(line_text: str, column: int, encoding: str = UTF16) -> int:
    """A 0-based character column on `line_text` in the client's units."""
    column = max(0, min(column, len(line_text)))
    return _units(line_text[:column], encoding)


def from_client_column(line_text: str, units: int, encoding: str = UTF16) -> int:
    """The character column of a client column (clamped to the line)."""
    if encoding == UTF32 or line_text.isascii():
        return max(0, min(units, len(line_text)))
    count = 0
    for index, char in enumerate(line_text):
        if count >= units:
            return index
        count += _units(char, encoding)
    return len(line_text)


def to_position(lines: Sequence[str], line: int, column: int, encoding: str = UTF16) -> types.Position:
    """Core (1-based line, character column) → LSP position, clamped to the document."""
    if not lines:
        return types.Position(line=0, character=0)
    index = max(0, min(line - 1, len(lines) - 1))
    if line - 1 >= len(lines):  # past the end (a syntax error at EOF): end of the last line
        return types.Position(line=index, character=_units(lines[index], encoding))
    return types.Position(line=index, character=to_client_column(lines[index], column, encoding))


def to_range(lines: Sequence[str], span: Span, encoding: str = UTF16) -> types.Range:
    start = to_position(lines, span.line, span.column, encoding)
    end = to_position(lines, span.end_line, span.end_column, encoding)
    if (end.line, end.character) < (start.line, start.character):
        end = start
    return types.Range(start=start, end=end)


def from_position(lines: Sequence[str], position: types.Position, encoding: str = UTF16) -> tuple[int, int]:
    """LSP position → core (1-based line, character column)."""
    index = max(0, position.line)
    text = lines[index] if index < len(lines) else ""
    return index + 1, from_client_column(text, position.character, encoding)


def span_contains(span: Span, line: int, column: int) -> bool:
    """Whether a core position lies in `span` (its end included, so a cursor right after the
    flagged text still counts)."""
    return (span.line, span.column) <= (line, column) <= (span.end_line, span.end_column)


def spans_overlap(span: Span, start: tuple[int, int], end: tuple[int, int]) -> bool:
    return (span.line, span.column) <= end and start <= (span.end_line, span.end_column)


def uri_to_path(uri: str) -> str:
    path = to_fs_path(uri)
    return path if path is not None else uri


def path_to_uri(path: str | Path) -> str:
    uri = from_fs_path(str(path))
    return uri if uri is not None else str(path)
