"""What gets analysed: a snapshot of an open document (or of a whole notebook, its code cells
joined into one module) taken on the event loop and handed to a worker thread.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pygls.workspace import Workspace

MAX_CHARS = 5_000_000  # larger documents are not analysed
MAX_LINES = 100_000
_MAGIC = re.compile(r"^(\s*)(%|!)")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def split_lines(text: str) -> list[str]:
    """LSP lines (`\\n`, `\\r\\n`, `\\r`); kept here so the analysis worker, which unpickles
    snapshots, never imports lsprotocol."""
    return _LINE_BREAK.split(text)


def uri_to_path(uri: str) -> str:
    from tf_insight_server.conversions import uri_to_path as convert

    return convert(uri)


@dataclass(frozen=True)
class Cell:
    uri: str
    first_line: int  # 1-based line of the joined module where this cell starts
    line_count: int

    def holds(self, line: int) -> bool:
        return self.first_line <= line < self.first_line + self.line_count


@dataclass(frozen=True)
class Snapshot:
    key: str  # the document's URI, or the notebook's for a notebook
    version: int | None
    text: str
    path: str
    cells: tuple[Cell, ...] = ()
    lines: list[str] = field(default_factory=list, compare=False, repr=False)

    @property
    def is_notebook(self) -> bool:
        return bool(self.cells)

    def cell_for(self, line: int) -> Cell | None:
        for cell in self.cells:
            if cell.holds(line):
                return cell
        return self.cells[-1] if self.cells else None


def text_snapshot(workspace: Workspace, uri: str) -> Snapshot | None:
    document = workspace.text_documents.get(_unquote(uri))
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
    parts: list[str] = []
    cells: list[Cell] = []
    line = 1
    from lsprotocol import types

    for cell in notebook.cells:
        if cell.kind != types.NotebookCellKind.Code:
            continue
        document = workspace.text_documents.get(_unquote(cell.document))
        if document is None or (document.language_id not in (None, "python")):
            continue
        cell_lines = split_lines(_neutralise_magics(document.source))
        if cell_lines and cell_lines[-1] == "":
            cell_lines.pop()
        cell_lines = cell_lines or [""]
        cells.append(Cell(uri=cell.document, first_line=line, line_count=len(cell_lines)))
        parts.extend(cell_lines)
        line += len(cell_lines)
    text = "\n".join(parts) + "\n"
    return Snapshot(key=notebook_uri, version=notebook.version, text=text,
                    path=uri_to_path(notebook_uri), cells=tuple(cells), lines=split_lines(text))


def _neutralise_magics(text: str) -> str:
    """IPython magics and shell escapes are not Python: a `%%cell` magic blanks its cell,
    `%line`/`!shell` lines become `pass` (line numbers are kept)."""
    if text.lstrip().startswith("%%"):
        return "\n" * text.count("\n")
    if "%" not in text and "!" not in text:
        return text
    return "\n".join(
        (match.group(1) + "pass") if (match := _MAGIC.match(line)) else line
        for line in text.split("\n")
    )


def _unquote(uri: str) -> str:
    from urllib.parse import unquote

    return unquote(uri)
