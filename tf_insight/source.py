"""A Python file as the analyzer sees it: text, parsed tree, `# noqa` comments, positions.

Never raises on bad input: a syntax error is kept as `syntax_error` (the caller reports it as
TFI000) and the tree is then None.
"""

from __future__ import annotations

import ast
import re
import warnings
from dataclasses import dataclass, field
from functools import cached_property

from tf_insight.findings import Span

# `# noqa` alone silences every code on the line; `# noqa: TFI001, TFI003` only those.
_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?", re.I)
ALL_CODES = frozenset({"*"})
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


@dataclass
class SyntaxProblem:
    message: str
    span: Span


@dataclass
class SourceFile:
    path: str
    text: str
    tree: ast.Module | None = None
    syntax_error: SyntaxProblem | None = None
    lines: list[str] = field(default_factory=list)

    @classmethod
    def parse(cls, path: str, text: str) -> SourceFile:
        # Only \n, \r\n and \r end lines for ast; str.splitlines would also split on form
        # feeds and other separators and shift every line number after them.
        source = cls(path=path, text=text, lines=_LINE_BREAK.split(text))
        try:
            with warnings.catch_warnings():  # SyntaxWarnings are the user's linter's business
                warnings.simplefilter("ignore")
                source.tree = ast.parse(text, filename=path, type_comments=False)
        except SyntaxError as error:
            line = max(error.lineno or 1, 1)
            column = max((error.offset or 1) - 1, 0)
            source.syntax_error = SyntaxProblem(
                message=f"syntax error: {error.msg}",
                span=Span(line, column, line, column + 1),
            )
        except (ValueError, RecursionError, MemoryError) as error:  # NUL bytes, absurd nesting
            source.syntax_error = SyntaxProblem(
                message=f"cannot parse: {error}", span=Span(1, 0, 1, 0)
            )
        return source

    def column(self, line: int, byte_offset: int) -> int:
        """Convert ast's UTF-8 byte offset on `line` (1-based) into a character column."""
        if line < 1 or line > len(self.lines):
            return byte_offset
        text = self.lines[line - 1]
        if text.isascii():
            return byte_offset
        return len(text.encode("utf-8")[:byte_offset].decode("utf-8", errors="replace"))

    def span(self, node: ast.AST) -> Span:
        """The precise span of an ast node (statements and expressions alike)."""
        line = getattr(node, "lineno", 1)
        end_line = getattr(node, "end_lineno", None) or line
        column = self.column(line, getattr(node, "col_offset", 0))
        end_offset = getattr(node, "end_col_offset", None)
        end_column = self.column(end_line, end_offset) if end_offset is not None else column
        return Span(line, column, end_line, end_column)

    def segment(self, node: ast.AST) -> str:
        """The source text of a node (like `ast.get_source_segment`, without re-splitting the
        whole file on every call)."""
        end_line = getattr(node, "end_lineno", None)
        end_offset = getattr(node, "end_col_offset", None)
        if end_line is None or end_offset is None:
            return ""
        span = self.span(node)
        if span.line == span.end_line:
            return self.lines[span.line - 1][span.column : span.end_column]
        first = self.lines[span.line - 1][span.column :]
        middle = self.lines[span.line : span.end_line - 1]
        last = self.lines[span.end_line - 1][: span.end_column]
        return "\n".join([first, *middle, last])

    def line_indent(self, line: int) -> str:
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        return text[: len(text) - len(text.lstrip())]

    @cached_property
    def noqa(self) -> dict[int, frozenset[str]]:
        """Line → suppressed codes (`{"*"}` for a bare `# noqa`). Read per line with a regex,
        as linters do: tokenizing a whole large file costs more than the analysis."""
        suppressed: dict[int, frozenset[str]] = {}
        if "noqa" not in self.text and "NOQA" not in self.text.upper():
            return suppressed
        for number, line in enumerate(self.lines, start=1):
            if "#" not in line:
                continue
            match = _NOQA.search(line)
            if match is None:
                continue
            codes = match.group("codes")
            suppressed[number] = (
                frozenset(code.upper() for code in re.split(r"[\s,]+", codes) if code)
                if codes
                else ALL_CODES
            )
        return suppressed

    def is_suppressed(self, line: int, code: str) -> bool:
        codes = self.noqa.get(line)
        return codes is not None and (codes is ALL_CODES or "*" in codes or code in codes)
