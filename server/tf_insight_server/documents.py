"""What gets analysed: a snapshot of an open document (or of a whole notebook, its code cells
joined into one module), taken on the event loop (`conversions.text_snapshot`,
`notebook_snapshot`) and handed to the analysis worker, which unpickles it: this module
imports neither pygls nor lsprotocol.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tf_insight.check import CellLines, cell_at

CLOSED = object()  # the version of a document that is not open: equal to no snapshot's
MAX_CHARS = 5_000_000  # larger documents are not analysed
MAX_LINES = 100_000


@dataclass(frozen=True)
class Cell(CellLines):
    """A code cell of an open notebook: where it is in the joined module, and its document."""

    uri: str = ""


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

    def cell_of_uri(self, uri: str) -> Cell | None:
        return next((cell for cell in self.cells if cell.uri == uri), None)

    def cell_lines(self, cell: Cell) -> list[str]:
        """A cell's own lines, cut from the joined module's."""
        start = cell.first_line - 1
        return self.lines[start:start + cell.line_count]

    def lines_of(self, uri: str) -> list[str]:
        """The lines of `uri`: the document's, or those of one of the notebook's cells."""
        if not self.is_notebook:
            return self.lines
        cell = self.cell_of_uri(uri)
        return self.cell_lines(cell) if cell is not None else []

    def cell_for(self, line: int) -> Cell | None:
        return cell_at(self.cells, line) if self.cells else None
