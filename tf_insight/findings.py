"""What the analyzer reports: findings with precise spans, optional fixes and related places.

Spans use 1-based lines and 0-based *character* columns (not ast's UTF-8 byte offsets); each
output format converts from here (the CLI prints 1-based columns, LSP wants 0-based lines and
UTF-16 columns).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum


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


@dataclass(frozen=True)
class Edit:
    """Replace the text of `span` with `new_text` (insert when the span is empty)."""

    span: Span
    new_text: str


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

    def sort_key(self) -> tuple[str, Span, str]:
        return (self.path, self.span, self.code)
