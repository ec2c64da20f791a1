"""Jupyter notebooks as Python modules: the code cells joined in order, as "Run All" runs them.

IPython syntax is not Python: a `%%cell` magic blanks its cell, `%line` magics and `!shell`
lines become `pass`, and so does a line magic called without its `%` (IPython's automagic,
on by default: `load_ext autoreload`, `watermark -v -p tensorflow`) where the line is not
Python, so line numbers stay those of the cell. Each cell ends on its own line.
Positions in the joined module map back to (cell, line in the cell); cells are numbered from 1
in notebook order, markdown cells included, as the notebook shows them. Used by `check` (files
read from disk, `--fix` writes the changed cells back) and by the language server (cells an
editor sends).
"""

from __future__ import annotations

import ast
import bisect
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from tf_insight.findings import Finding, Fix, Span

_MAGIC = re.compile(r"^(\s*)(%|!)")
# IPython's own line magics and those of common extensions, which automagic calls without a
# `%`: the name, then what IPython would not read as Python's (`watermark -v`, `cd ..`)
_AUTOMAGIC = re.compile(
    r"^(\s*)(?:aimport|alias|autoawait|autocall|autoreload|automagic|bookmark|cat|cd|clear|"
    r"colors|conda|config|cp|dhist|dirs|doctest_mode|ed|edit|env|gui|hist|history|load|"
    r"load_ext|loadpy|logstart|logstop|ls|lsmagic|macro|magic|matplotlib|mkdir|mv|page|pdb|"
    r"pinfo|pip|popd|precision|prun|pushd|pwd|pycat|pylab|recall|reload_ext|rerun|reset|"
    r"rm|rmdir|run|save|sc|set_env|store|sx|system|tb|tensorboard|time|timeit|unalias|"
    r"unload_ext|watermark|who|whos|xdel|xmode)[ \t]+(?:-|\.\.|[\w/~\"'])", re.M)
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def neutralise_magics(text: str) -> str:
    """IPython magics and shell escapes are not Python: a `%%cell` magic blanks its cell,
    `%line`/`!shell` lines and automagic lines that are not Python (`_AUTOMAGIC`) become
    `pass`, and the lines a trailing backslash continues them onto become empty (line numbers
    are kept)."""
    if text.lstrip().startswith("%%"):
        return "\n" * text.count("\n")
    if "%" not in text and "!" not in text and not _AUTOMAGIC.search(text):
        return text
    lines: list[str] = []
    continued = False
    for line in text.split("\n"):
        if continued:
            lines.append("")
        elif match := _MAGIC.match(line) or _automagic(line):
            lines.append(match.group(1) + "pass")
        else:
            lines.append(line)
            continue
        continued = line.rstrip().endswith("\\")
    return "\n".join(lines)


def _automagic(line: str) -> re.Match[str] | None:
    """A line that IPython's automagic runs as a magic and Python cannot read by itself (`time
    = (1,` starts a statement and stays)."""
    match = _AUTOMAGIC.match(line)
    if match is None or line.rstrip().endswith(("\\", ",", "(", "[", "{", ":")):
        return None
    try:
        compile(line.strip(), "<cell line>", "exec", ast.PyCF_ONLY_AST)
    except SyntaxError:
        return match
    return None


@dataclass(frozen=True)
class CellLines:
    """Where one code cell is in the joined module."""

    number: int  # 1-based, in notebook order (all cells counted)
    first_line: int  # 1-based line of the joined module where the cell starts
    line_count: int

    def holds(self, line: int) -> bool:
        return self.first_line <= line < self.first_line + self.line_count

    def relative(self, span: Span) -> Span:
        """A span of the joined module in this cell's own lines; a span that runs into the
        next cell is cut at this cell's end."""
        offset = self.first_line - 1
        if span.end_line >= self.first_line + self.line_count:
            return replace(span, line=span.line - offset, end_line=self.line_count,
                           end_column=10**9)
        return replace(span, line=span.line - offset, end_line=span.end_line - offset)


Placed = TypeVar("Placed", bound=CellLines)


def cell_at(cells: Sequence[Placed], line: int) -> Placed:
    """The cell a line of the joined module is in (past the end: the last cell)."""
    return next((cell for cell in cells if cell.holds(line)), cells[-1])


@dataclass(frozen=True)
class JoinedCells:
    text: str
    cells: tuple[CellLines, ...]

    def to_cell(self, span: Span) -> tuple[int, Span]:
        """A span of the joined module as (cell number, span in that cell)."""
        cell = cell_at(self.cells, span.line)
        return cell.number, cell.relative(span)


def in_cells(finding: Finding, joined: JoinedCells) -> Finding:
    """A finding of the joined module with every position in the notebook's own terms."""
    cell, span = joined.to_cell(finding.span)
    fix = finding.fix
    if fix is not None:
        edits = []
        for edit in fix.edits:
            edit_cell, edit_span = joined.to_cell(edit.span)
            edits.append(replace(edit, span=edit_span, cell=edit_cell))
        fix = Fix(fix.description, tuple(edits))
    related = []
    for item in finding.related:
        if item.path == finding.path:
            item_cell, item_span = joined.to_cell(item.span)
            item = replace(item, span=item_span, cell=item_cell)
        related.append(item)
    return replace(finding, span=span, cell=cell, fix=fix, related=tuple(related))


def join_cells(cells: list[tuple[int, str]]) -> JoinedCells:
    """`(number, source)` of each code cell, in order, joined into one module."""
    parts: list[str] = []
    placed: list[CellLines] = []
    line = 1
    for number, source in cells:
        lines = _LINE_BREAK.split(neutralise_magics(source))
        if lines and lines[-1] == "":
            lines.pop()
        lines = lines or [""]
        placed.append(CellLines(number, line, len(lines)))
        parts.extend(lines)
        line += len(lines)
    return JoinedCells("\n".join(parts) + "\n", tuple(placed))


class NotebookError(ValueError):
    """Not a notebook we can read; the message says why, for the user."""


@dataclass
class Notebook:
    """A notebook file: its text and JSON as read, and its code cells joined."""

    text: str
    document: dict[str, Any]
    joined: JoinedCells

    @classmethod
    def parse(cls, text: str) -> Notebook:
        try:
            document = json.loads(text)
        except json.JSONDecodeError as error:
            raise NotebookError(f"not a notebook: invalid JSON at line {error.lineno}, "
                                f"column {error.colno} ({error.msg})") from None
        except RecursionError:
            raise NotebookError("not a notebook: its JSON is nested too deeply to read") from None
        cells = document.get("cells") if isinstance(document, dict) else None
        if not isinstance(cells, list):
            raise NotebookError("not a notebook: no list of `cells` in its JSON")
        code: list[tuple[int, str]] = []
        for number, cell in enumerate(cells, start=1):
            if not isinstance(cell, dict) or cell.get("cell_type") != "code":
                continue
            source = cell.get("source", "")
            if isinstance(source, list):
                source = "".join(str(part) for part in source)
            code.append((number, str(source)))
        return cls(text, document, join_cells(code))

    def with_sources(self, sources: dict[int, str]) -> str:
        """The notebook's text with the given cells' sources replaced and every other byte
        as it was (outputs, metadata, escapes, indentation, line ends): only the JSON strings
        of those sources that changed are written anew. Raises NotebookError, saying why, when
        that cannot be done exactly."""
        try:
            positions = _PositionedJson(self.text)
            positions.read()
        except (ValueError, IndexError, RecursionError):
            raise NotebookError("cannot find the cells' text in the file's JSON") from None
        edits: list[tuple[int, int, str]] = []
        for number, source in sources.items():
            pieces = positions.sources.get(number, [])
            if "".join(piece.text for piece in pieces) != self.cell_source(number) or not pieces:
                raise NotebookError(f"cannot find cell {number}'s text in the file's JSON")
            edits.append(_respliced(self.text, pieces, source,
                                    isinstance(self.document["cells"][number - 1]["source"],
                                               list)))
        text = self.text
        for start, end, new in sorted(edits, reverse=True):
            text = text[:start] + new + text[end:]
        try:
            written = Notebook.parse(text)
        except NotebookError:
            written = None
        if written is None or any(written.cell_source(number) != source
                                  for number, source in sources.items()):
            raise NotebookError("the rewritten notebook would not read back as intended")
        return text

    def cell_source(self, number: int) -> str:
        source = self.document["cells"][number - 1].get("source", "")
        return "".join(source) if isinstance(source, list) else str(source)


def _respliced(text: str, pieces: list[_SourcePiece], source: str,
               as_list: bool) -> tuple[int, int, str]:
    """The one edit of the notebook's text that turns a cell's `source` strings (`pieces`)
    into `source`: (start, end, new text). A list keeps the pieces that did not change, as
    they were written; the changed ones are written as Jupyter writes them (a line each)."""
    if not as_list:
        piece = pieces[0]
        return piece.raw_start, piece.raw_start + len(piece.raw), _json_text(source)
    old = [piece.text for piece in pieces]
    new = source.splitlines(keepends=True)  # as nbformat splits a source into its list
    same_start = 0
    while same_start < min(len(old), len(new)) and old[same_start] == new[same_start]:
        same_start += 1
    same_end = 0
    while (same_end < min(len(old), len(new)) - same_start
           and old[-1 - same_end] == new[-1 - same_end]):
        same_end += 1
    changed_old = pieces[same_start:len(old) - same_end]
    changed_new = new[same_start:len(new) - same_end]
    separator = _separator(text, pieces)
    written = separator.join(f'"{_json_text(line)}"' for line in changed_new)
    if changed_old:  # from the first changed string's opening quote to the last's closing one
        start = changed_old[0].raw_start - 1
        end = changed_old[-1].raw_start + len(changed_old[-1].raw) + 1
        if not changed_new:  # removed: with one separator
            if same_start > 0:
                start = pieces[same_start - 1].raw_start + len(pieces[same_start - 1].raw) + 1
            elif same_end > 0:
                end = pieces[len(old) - same_end].raw_start - 1
        return start, end, written
    if same_start > 0:  # inserted after an unchanged string
        after = pieces[same_start - 1].raw_start + len(pieces[same_start - 1].raw) + 1
        return after, after, separator + written
    before = pieces[0].raw_start - 1
    return before, before, written + separator


def _separator(text: str, pieces: list[_SourcePiece]) -> str:
    """What the file writes between two strings of a cell's source list."""
    if len(pieces) > 1:
        return text[pieces[0].raw_start + len(pieces[0].raw) + 1:pieces[1].raw_start - 1]
    quote = pieces[0].raw_start - 1
    line_start = max(text.rfind("\n", 0, quote), text.rfind("\r", 0, quote)) + 1
    indent = text[line_start:quote]
    newline = "\r\n" if "\r\n" in text else "\n"
    return f",{newline}{indent}" if not indent.strip() else ", "


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _json_text(value: str) -> str:
    """A JSON string's text (without its quotes) as Jupyter writes it (non-ASCII as is), a lone
    surrogate escaped (UTF-8 cannot hold it)."""
    written = json.dumps(value, ensure_ascii=False)[1:-1]
    return _LONE_SURROGATE.sub(lambda match: f"\\u{ord(match.group()):04x}", written)


@dataclass(frozen=True)
class _SourcePiece:
    """One JSON string of a cell's `source`, as the notebook file has it."""

    start: int  # offset of its text in the cell's source
    text: str
    raw_start: int  # offset in the file of the character after its opening quote
    raw: str  # its JSON text, escapes as written


class FilePositions:
    """Where a code cell's lines are in the notebook file itself, for reports that point into
    the file as it is stored (SARIF: code-scanning shows the `.ipynb` file's own lines).
    Reads the file's JSON with positions; a file it cannot read maps nothing."""

    def __init__(self, text: str) -> None:
        self._line_starts = [0] + [m.end() for m in _LINE_BREAK.finditer(text)]
        self._cells: dict[int, tuple[str, list[_SourcePiece]]] = {}
        with_positions = _PositionedJson(text)
        try:
            with_positions.read()
        except (ValueError, IndexError):
            return
        for number, pieces in with_positions.sources.items():
            self._cells[number] = ("".join(piece.text for piece in pieces), pieces)

    def position(self, cell: int, line: int, column: int) -> tuple[int, int] | None:
        """(1-based line, 0-based column) in the file of `column` on `line` of `cell`."""
        found = self._cells.get(cell)
        if found is None:
            return None
        source, pieces = found
        starts = [0] + [m.end() for m in _LINE_BREAK.finditer(source)]
        if not 1 <= line <= len(starts):
            return None
        line_end = starts[line] - 1 if line < len(starts) else len(source)
        offset = min(starts[line - 1] + column, line_end)
        piece = next((p for p in reversed(pieces) if p.start <= offset), None)
        if piece is None:
            return None
        at = piece.raw_start + _raw_length(piece.raw, offset - piece.start)
        file_line = bisect.bisect_right(self._line_starts, at)
        return file_line, at - self._line_starts[file_line - 1]


def _scan_string(text: str, index: int) -> tuple[str, int]:
    """The JSON string whose text starts at `index` (after its quote), and where it ends."""
    value, end = json.decoder.scanstring(text, index)  # type: ignore[attr-defined]
    return str(value), int(end)


def _raw_length(raw: str, characters: int) -> int:
    """How many characters of the JSON string text `raw` hold its first `characters`
    decoded characters (an escape is one character written as several)."""
    index = 0
    for _ in range(characters):
        if index >= len(raw):
            break
        index += (6 if raw[index + 1:index + 2] == "u" else 2) if raw[index] == "\\" else 1
    return index


class _PositionedJson:
    """Just enough of a JSON reader to find each cell's `source` strings and their offsets."""

    _SCALAR = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null")
    _SPACE = re.compile(r"[ \t\r\n]*")

    def __init__(self, text: str) -> None:
        self._text = text
        self.sources: dict[int, list[_SourcePiece]] = {}

    def read(self) -> None:
        self._value(self._skip(0), ())

    def _skip(self, index: int) -> int:
        match = self._SPACE.match(self._text, index)
        return match.end() if match else index

    def _value(self, index: int, path: tuple[Any, ...]) -> int:
        char = self._text[index]
        if char == "{":
            index = self._skip(index + 1)
            while self._text[index] != "}":
                key, index = _scan_string(self._text, index + 1)
                index = self._skip(self._skip(index) + 1)  # past the colon
                index = self._skip(self._value(index, (*path, key)))
                if self._text[index] == ",":
                    index = self._skip(index + 1)
            return index + 1
        if char == "[":
            index, position = self._skip(index + 1), 0
            while self._text[index] != "]":
                index = self._skip(self._value(index, (*path, position)))
                position += 1
                if self._text[index] == ",":
                    index = self._skip(index + 1)
            return index + 1
        if char == '"':
            value, end = _scan_string(self._text, index + 1)
            self._note_source(path, value, index + 1, end - 1)
            return end
        match = self._SCALAR.match(self._text, index)
        if match is None:
            raise ValueError(f"unexpected {char!r} at {index}")
        return match.end()

    def _note_source(self, path: tuple[Any, ...], value: str, start: int, end: int) -> None:
        """A string at `cells[i].source` or `cells[i].source[k]`: one piece of that cell."""
        if not 3 <= len(path) <= 4 or path[0] != "cells" or path[2] != "source":
            return
        pieces = self.sources.setdefault(int(path[1]) + 1, [])
        begin = pieces[-1].start + len(pieces[-1].text) if pieces else 0
        pieces.append(_SourcePiece(begin, value, start, self._text[start:end]))
