"""What the analyzer reports: findings with precise spans, optional fixes and related places.

Spans use 1-based lines and 0-based *character* columns (not ast's UTF-8 byte offsets); each
output format converts from here (the CLI prints 1-based columns, LSP wants 0-based lines and
UTF-16 columns).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


@dataclass(frozen=True, order=True)
class Span:
    """A range in a file: 1-based lines, 0-based character columns, end exclusive."""

    line: int
    column: int
    end_line: int
    end_column: int

    def to_dict(self) -> dict[str, int]:
        """JSON positions: 1-based lines and columns, as editors and `path:line:column` show."""
        return {"line": self.line, "column": self.column + 1,
                "end_line": self.end_line, "end_column": self.end_column + 1}


@dataclass(frozen=True)
class Edit:
    """Replace the text of `span` with `new_text` (insert when the span is empty)."""

    span: Span
    new_text: str
    cell: int | None = None  # in a notebook: the cell the span is in


@dataclass(frozen=True)
class Fix:
    """A safe, mechanical change that removes the hazard; `edits` never overlap."""

    description: str
    edits: tuple[Edit, ...]


@dataclass(frozen=True)
class Related:
    """Another place involved in a finding (a decorator's definition, a reassignment...)."""

    path: str
    span: Span
    message: str
    cell: int | None = None


@dataclass(frozen=True)
class Finding:
    code: str
    name: str
    message: str
    path: str
    span: Span
    severity: Severity
    fix: Fix | None = None
    related: tuple[Related, ...] = field(default=())
    cell: int | None = None  # in a notebook: the cell `span` is in (lines count from its top)
    detail: str = ""  # why it goes wrong (`message` is one line)
    help: str = ""  # what to do instead, in one line

    @property
    def help_text(self) -> str:
        """What to do: the rule's advice, else the title of its fix."""
        return self.help or (self.fix.description if self.fix else "")

    def to_dict(self) -> dict[str, Any]:
        """The one JSON shape of a finding: `check --format json`, `explain`'s `findings`, the
        server's explanations (the VS Code client's `Finding` type mirrors it)."""
        fix = None
        if self.fix is not None:
            fix = {"description": self.fix.description,
                   "edits": [{**_cell(e.cell), **e.span.to_dict(), "new_text": e.new_text}
                             for e in self.fix.edits]}
        return {
            "code": self.code,
            "name": self.name,
            "path": self.path,
            **_cell(self.cell),
            **self.span.to_dict(),
            "message": self.message,
            "detail": self.detail,
            "help": self.help_text,
            "severity": self.severity.value,
            "fix": fix,
            "related": [{"path": r.path, **_cell(r.cell), **r.span.to_dict(),
                         "message": r.message} for r in self.related],
        }

    def sort_key(self) -> tuple[str, int, Span, str]:
        return (self.path, self.cell or 0, self.span, self.code)


def _cell(cell: int | None) -> dict[str, int]:
    """`cell` in JSON only for notebooks: the shape of a .py file's finding is unchanged."""
    return {} if cell is None else {"cell": cell}
