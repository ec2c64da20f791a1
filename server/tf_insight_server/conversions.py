"""Every conversion between the core's positions and LSP's, in one place.

The core: 1-based lines, 0-based *character* columns (:class:`tf_insight.findings.Span`).
LSP: 0-based lines, columns in the negotiated position encoding (UTF-16 code units unless the
client offered something else at `initialize`). Lines are split the LSP way (`\\n`, `\\r\\n`,
`\\r` only), which is also how Python's tokenizer counts them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

from lsprotocol import types
from pygls.uris import from_fs_path, to_fs_path
from pygls.workspace import Workspace

from tf_insight import Fix, Severity, Span, read_text
from tf_insight.check import join_cells, split_lines
from tf_insight_server.documents import MAX_CHARS, Cell, Snapshot

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


def end_of_line(lines: Sequence[str], line: int, encoding: str = UTF16) -> types.Position | None:
    """The LSP position after the last character of core line `line` (1-based), if it exists."""
    if not 0 < line <= len(lines):
        return None
    return to_position(lines, line, len(lines[line - 1]), encoding)


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


def uri_to_path(uri: str) -> str:
    path = to_fs_path(uri)
    return path if path is not None else uri


def path_to_uri(path: str | Path) -> str:
    uri = from_fs_path(str(path))
    return uri if uri is not None else str(path)


def text_snapshot(workspace: Workspace, uri: str) -> Snapshot | None:
    document = workspace.text_documents.get(unquote(uri))
    if document is None:
        return None
    text = document.source
    # a document too large to analyse is not split into lines: nothing will be placed in it
    lines = split_lines(text) if len(text) <= MAX_CHARS else []
    return Snapshot(key=uri, version=document.version, text=text, path=uri_to_path(uri),
                    lines=lines)


def notebook_snapshot(workspace: Workspace, notebook_uri: str) -> Snapshot | None:
    notebook = workspace.get_notebook_document(notebook_uri=notebook_uri)
    if notebook is None:
        return None
    uris: list[str] = []
    sources: list[tuple[int, str]] = []
    for number, cell in enumerate(notebook.cells, start=1):
        if cell.kind != types.NotebookCellKind.Code:
            continue
        document = workspace.text_documents.get(unquote(cell.document))
        if document is None or (document.language_id not in (None, "python")):
            continue
        uris.append(cell.document)
        sources.append((number, document.source))
    joined = join_cells(sources)
    cells = tuple(Cell(placed.number, placed.first_line, placed.line_count, uri=uri)
                  for uri, placed in zip(uris, joined.cells, strict=True))
    return Snapshot(key=notebook_uri, version=notebook.version, text=joined.text,
                    path=uri_to_path(notebook_uri), cells=cells, lines=split_lines(joined.text))


@dataclass
class Located:
    """A core span placed in a client document: its URI and range."""

    uri: str
    range: types.Range


class Placer:
    """Puts core spans of a snapshot (or of another file) into client documents."""

    def __init__(self, snapshot: Snapshot, encoding: str) -> None:
        self.snapshot = snapshot
        self.encoding = encoding
        self._other_lines: dict[str, list[str]] = {}

    def place(self, span: Span, path: str | None = None) -> Located:
        snapshot = self.snapshot
        if path is not None and not _same_path(path, snapshot.path):
            return Located(path_to_uri(path),
                           to_range(self._lines_of(path), span, self.encoding))
        if not snapshot.is_notebook:
            return Located(snapshot.key, to_range(snapshot.lines, span, self.encoding))
        cell = snapshot.cell_for(span.line)
        assert cell is not None
        return Located(cell.uri, to_range(snapshot.cell_lines(cell), cell.relative(span),
                                          self.encoding))

    def _lines_of(self, path: str) -> list[str]:
        if path not in self._other_lines:
            try:
                self._other_lines[path] = split_lines(read_text(path))
            except OSError:
                self._other_lines[path] = []
        return self._other_lines[path]


def _same_path(a: str, b: str) -> bool:
    if a == b:
        return True
    try:
        return Path(a).resolve() == Path(b).resolve()
    except OSError:
        return False


def to_document_position(snapshot: Snapshot, uri: str, position: types.Position,
                         encoding: str) -> tuple[int, int] | None:
    """An LSP position in `uri` (the document or one of the notebook's cells) as a core
    (1-based line, character column) in the analysed text."""
    if not snapshot.is_notebook:
        return from_position(snapshot.lines, position, encoding)
    cell = snapshot.cell_of_uri(uri)
    if cell is None:
        return None
    line, column = from_position(snapshot.cell_lines(cell), position, encoding)
    return line + cell.first_line - 1, column


def fix_edits(fix: Fix, placer: Placer) -> dict[str, list[types.TextEdit]]:
    """A core fix's edits as LSP text edits, by document (a notebook fix can touch cells)."""
    edits: dict[str, list[types.TextEdit]] = {}
    for edit in fix.edits:
        where = placer.place(edit.span)
        edits.setdefault(where.uri, []).append(types.TextEdit(range=where.range,
                                                              new_text=edit.new_text))
    return edits
