"""A Python file as the analyzer sees it: text, parsed tree, `# noqa` comments, positions.

Never raises on bad input: a syntax error is kept as `syntax_error` (the caller reports it as
TFI000) and the tree is then None.

An editor re-analyses a file on every keystroke; `SourceFile.edited` parses only the top-level
statements an edit touched and reuses the others' nodes (parsing is a quarter of the analysis
of a large file).
"""

from __future__ import annotations

import ast
import bisect
import contextlib
import os
import re
import threading
import tokenize
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from tf_insight.check.notebook import Notebook, NotebookError
from tf_insight.files import MAX_FILE_BYTES, SkippedFile, read_regular, write_atomically
from tf_insight.findings import Span

# A bare noqa comment silences every code on the line; `noqa: TFI001, TFI003` only those.
# A noqa comment: bare, it silences every code on its line; with `: TFI001, TFI003`, those
# codes (the server's "add noqa" action extends the list it finds).
NOQA = re.compile(r"#\s*noqa(?P<colon>:\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?", re.I)
ALL_CODES = frozenset({"*"})
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
ENCODING_LINES_BYTES = 4096  # what it takes to read the two lines a coding declaration is on
_BYTE_LINE = re.compile(rb"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")


def split_lines(text: str) -> list[str]:
    """The lines of a text as Python and LSP count them: only \\n, \\r\\n and \\r end a line
    (str.splitlines would also split on form feeds and other separators and shift every line
    after them)."""
    return text.split("\n") if "\r" not in text else _LINE_BREAK.split(text)


def line_starts(text: str) -> list[int]:
    """The offset in `text` where each line (as `split_lines` counts them) starts."""
    return [0, *(match.end() for match in _LINE_BREAK.finditer(text))]


@dataclass
class SyntaxProblem:
    message: str
    span: Span


# how much larger than `max-file-size` a notebook file may be when its code is within it
NOTEBOOK_FILE_FACTOR = 20


@dataclass
class SourceFile:
    path: str
    text: str
    tree: ast.Module | None = None
    syntax_error: SyntaxProblem | None = None
    lines: list[str] = field(default_factory=list)
    # Facts derived from one top-level statement alone, kept for the next version of an
    # editable file: fact name → statement id → value. `edited` carries them over for the
    # statements an edit did not touch (their nodes are the same objects).
    derived: dict[str, dict[int, Any]] | None = field(default=None, repr=False)
    # an edited file that does not parse: the last version that did, which the next edit is
    # diffed against (typing passes through many texts that do not parse)
    base: SourceFile | None = field(default=None, repr=False)
    # a notebook read from disk: `text` is its code cells joined (see `check.notebook`)
    notebook: Notebook | None = field(default=None, repr=False)

    @classmethod
    def parse(cls, path: str, text: str, editable: bool = False) -> SourceFile:
        """`editable`: the file will be `edited` (an open document): keep derived facts."""
        source = cls(path=path, text=text, lines=split_lines(text),
                     derived={} if editable else None)
        try:
            source.tree = parse_module(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
            source.syntax_error = _problem(text, error)
        return source

    @classmethod
    def read(cls, path: str | os.PathLike[str], limit: int = MAX_FILE_BYTES) -> SourceFile:
        """A file from disk, decoded as Python decodes it (a BOM or a `# -*- coding: -*-`
        line, else UTF-8). Text that Python could not decode is a syntax error, as it would
        be for Python; raises OSError when the file cannot be read at all, `SkippedFile` when
        it is not a regular file or is larger than `limit` bytes (`files.read_regular`). A
        notebook's bytes are mostly its outputs (plots as base64): the cap is on its code, and
        the file itself may be `NOTEBOOK_FILE_FACTOR` times larger."""
        if str(path).endswith(".ipynb"):
            source = cls._notebook(str(path), read_regular(path, limit * NOTEBOOK_FILE_FACTOR))
            if len(source.text.encode("utf-8")) > limit:
                raise SkippedFile(path, f"its code is larger than {limit:,} bytes (`max-file-size` "
                                        "in the settings raises the limit)")
            return source
        data = read_regular(path, limit)
        try:
            text = decode_source(data)
        except (SyntaxError, UnicodeDecodeError) as error:
            source = cls(path=str(path), text="", lines=[""])
            detail = (f"not {error.encoding} text ({error.reason} at byte {error.start}); a "
                      "`# -*- coding: ... -*-` line says which encoding it is in otherwise"
                      if isinstance(error, UnicodeDecodeError) else error.msg)
            source.syntax_error = SyntaxProblem(f"cannot decode the file: {detail}",
                                                Span(1, 0, 1, 0))
            return source
        return cls.parse(str(path), text)

    @classmethod
    def _notebook(cls, path: str, data: bytes) -> SourceFile:
        try:
            notebook = Notebook.parse(data.decode("utf-8"))
        except (UnicodeDecodeError, NotebookError) as error:
            source = cls(path=path, text="", lines=[""])
            message = (str(error) if isinstance(error, NotebookError)
                       else f"not a notebook: not UTF-8 text ({error.reason} at byte {error.start})")
            source.syntax_error = SyntaxProblem(message, Span(1, 0, 1, 0))
            return source
        source = cls.parse(path, notebook.joined.text)
        source.notebook = notebook
        return source

    def edited(self, text: str) -> SourceFile:
        """This file after an edit: the top-level statements the edit touched are parsed again,
        the others' nodes are reused (moved down or up by the lines the edit added or removed).
        The nodes are handed over: this SourceFile's tree must not be used afterwards.

        Why it is exact: every top-level statement starts at column 0 with the tokenizer in a
        clean state (no open bracket or string), so when the edited stretch parses on its own,
        the whole text parses to the unchanged statements before it, the stretch's statements
        and the unchanged statements after it. When the stretch does not parse on its own (an
        opened string or bracket, a decorator for the next statement...) the text from its
        first statement to the end of the file is parsed: the statements before it are the
        same, so that gives the whole text's tree. When that fails too, the whole text is
        parsed for its syntax error: CPython parses a failing text a second time with rules
        that explain errors, and these may blame a statement before the stretch (`return
        print - x` taken for Python 2's `print`), so only the whole text gives the error a
        fresh parse gives (20 ms of a 2,000-line file, for a key typed in an unfinished
        statement).
        """
        if self.tree is None and self.base is not None:
            return self.base.edited(text)
        if self.tree is None or not self.tree.body or "\r" in text or "\r" in self.text:
            return SourceFile.parse(self.path, text, editable=True)  # (\r: see the join below)
        old, new = self.lines, split_lines(text)
        if old == new:
            return SourceFile(self.path, text, self.tree, None, new, self.derived)
        first_changed, last_changed = _changed_lines(old, new)
        body = self.tree.body
        starts = [1, *(first_line(statement) for statement in body[1:])]
        first = statement_at(starts, first_changed)
        last = statement_at(starts, last_changed)
        shift = len(new) - len(old)
        start = starts[first]
        end = (starts[last + 1] - 1 if last + 1 < len(body) else len(old)) + shift
        after = body[last + 1 :]  # the statements after the stretch, reused
        # (parsed after `start - 1` empty lines: its positions, and its syntax error's, are
        # the file's)
        try:
            stretch = parse_module("\n" * (start - 1) + "\n".join(new[start - 1 : end]))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            rest = None  # the stretch and every statement after it
            if _starts_statement(new, start) and "barry_as_FLUFL" not in self.text:
                with contextlib.suppress(SyntaxError, ValueError, RecursionError, MemoryError):
                    rest = parse_module("\n" * (start - 1) + "\n".join(new[start - 1 :]))
            if rest is None:
                # the whole text's tree or error: CPython's second pass over a failing text
                # may blame a statement before the stretch (`return print - x` as Python 2's)
                whole = SourceFile.parse(self.path, text, editable=True)
                if whole.tree is None:
                    whole.base = self  # nothing was handed over
                return whole
            stretch, after = rest, []
        kept = {id(statement) for statement in [*body[:first], *after]}
        derived = {name: {key: value for key, value in facts.items() if key in kept}
                   for name, facts in (self.derived or {}).items()}
        if shift and after:
            # moving a flat list of a statement's positioned nodes is ten times faster than
            # walking its tree again
            positioned = derived.setdefault("positioned", {})
            for statement in after:
                if id(statement) not in positioned:
                    positioned[id(statement)] = _positioned_nodes(statement)
                for node in positioned[id(statement)]:
                    node.lineno += shift
                    node.end_lineno += shift
        tree = ast.Module(body=[*body[:first], *stretch.body, *after], type_ignores=[])
        return SourceFile(self.path, text, tree, None, new, derived)

    def derived_facts(self, name: str) -> dict[int, Any] | None:
        """Statement id → a fact named `name` derived from that top-level statement alone, to
        read and fill; None when the file is not editable (nothing would reuse them)."""
        return None if self.derived is None else self.derived.setdefault(name, {})

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

    def def_name_span(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> Span | None:
        """The span of the name in `def name(`: ast gives the statement's position only."""
        if not 0 < node.lineno <= len(self.lines):
            return None
        match = re.search(r"\bdef\s+(" + re.escape(node.name) + r")\b", self.lines[node.lineno - 1])
        if match is None:
            return None
        return Span(node.lineno, match.start(1), node.lineno, match.end(1))

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
            match = NOQA.search(line)
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


def decode_source(data: bytes) -> str:
    """Python's decoding of a source file; raises SyntaxError (an unknown encoding) or
    UnicodeDecodeError."""
    return data.decode(source_encoding(data))


def source_encoding(data: bytes) -> str:
    """The encoding Python reads a source file's bytes in: a BOM, a coding declaration on one
    of the first two lines (which, for Python, a \\r ends too), else UTF-8; raises
    SyntaxError for an unknown encoding."""
    lines = iter(_BYTE_LINE.findall(data, 0, ENCODING_LINES_BYTES))
    try:
        encoding, _ = tokenize.detect_encoding(lambda: next(lines, b""))
    except SyntaxError as error:
        if "unknown encoding" in str(error):
            raise
        encoding = "utf-8"  # undeclared and not UTF-8: let the decoder say where it fails
    return encoding


def write_source(path: str | os.PathLike[str], text: str) -> None:
    """Write `text` back to a source file in the encoding the file declares (a latin-1 file
    stays latin-1; a BOM stays), in one step (`files.write_atomically`); a text the encoding
    cannot hold raises UnicodeEncodeError and leaves the file as it was."""
    file = Path(path)
    encoding = source_encoding(read_regular(file, ENCODING_LINES_BYTES, head=True))
    write_atomically(file, text.encode(encoding))


# What only Python 2 writes: CPython's own hint for `print x`/`exec x`, and `except E, e:`,
# `raise E, "text"`, backticks, `ur""`, `0777` octals, `<>`.
_PYTHON_2 = re.compile(r"Missing parentheses in call to '(?:print|exec)'")
# `except E, e:`, `raise E, "why"`, a `print` statement, a `ur"..."` string (Python 3 has no `ur`)
_PYTHON_2_LINES = re.compile(r"^[ \t]*(?:except\s+[\w.]+\s*,\s*\w+\s*:|raise\s+[\w.]+\s*,\s*\S)"
                             r"|^[ \t]*print\s+[\"'\w]|^[^#\n]*?(?<![\w.])ur[\"']", re.M)


def _problem(text: str, error: Exception) -> SyntaxProblem:
    """What to report for text that does not parse, placed where Python would place it."""
    nul = text.find("\x00")
    if nul >= 0:  # Python refuses the whole file, without a position: give the NUL's
        line = text.count("\n", 0, nul) + 1
        column = nul - (text.rfind("\n", 0, nul) + 1)
        return SyntaxProblem("syntax error: source code cannot contain null bytes (a NUL "
                             f"byte at line {line}, column {column + 1})",
                             Span(line, column, line, column + 1))
    if isinstance(error, SyntaxError):
        line = max(error.lineno or 1, 1)
        column = max((error.offset or 1) - 1, 0)
        message = f"syntax error: {error.msg}"
        if _PYTHON_2.search(error.msg) or _PYTHON_2_LINES.search(text):
            message += ("; this is Python 2 code, which TF Insight does not check: exclude it "
                        "(`exclude = [\"<folder>/*\"]` in [tool.tf-insight])")
        return SyntaxProblem(message, Span(line, column, line, column + 1))
    # CPython's parser gives up on absurd nesting with a bare MemoryError or RecursionError
    return SyntaxProblem(f"cannot parse: the code is nested too deeply for Python's parser "
                         f"({type(error).__name__})", Span(1, 0, 1, 0))


# CPython 3.11's parser keeps its AST recursion depth in state that threads share: two threads
# parsing at once fail with "SystemError: AST constructor recursion depth mismatch" (sessions,
# their verdicts and analyses run on threads of one process). One parse at a time.
_PARSE_LOCK = threading.Lock()


def parse_module(text: str, filename: str = "<unknown>") -> ast.Module:
    """`ast.parse`, safe to call from any thread, SyntaxWarnings silenced (they are the
    user's linter's business). Leave `filename` out for an editor's text: CPython reads the
    line of a syntax error back from a named file, which holds the saved text, and the
    error's column would come from there."""
    with _PARSE_LOCK, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.parse(text, filename, type_comments=False)


def _changed_lines(old: list[str], new: list[str]) -> tuple[int, int]:
    """The first and last line (1-based) of `old` that an edit turning it into `new` changed;
    a pure insertion belongs to the line before it."""
    prefix = _shared(old, new, min(len(old), len(new)), lambda n, step: (n, n + step))
    suffix = _shared(old, new, min(len(old), len(new)) - prefix,
                     lambda n, step: (-n - step, -n or None))
    first = prefix + 1 if len(old) - suffix > prefix else max(prefix, 1)
    return first, max(len(old) - suffix, first)


def _shared(old: list[str], new: list[str], limit: int,
            stretch: Callable[[int, int], tuple[int, int | None]]) -> int:
    """How many lines, up to `limit`, the two share from one end: `stretch(n, step)` is the
    slice of the `step` lines after the `n` shared. Slices are compared in C, long ones first
    (a line at a time in Python took a fifth of a keystroke's parse)."""
    shared = 0
    for step in (256, 16, 1):
        while shared + step <= limit:
            start, end = stretch(shared, step)
            if old[start:end] != new[start:end]:
                break
            shared += step
    return shared


# Clauses that continue the statement before them: a line starting with one is no boundary.
_CONTINUATION = re.compile(r"(?:else|elif|except|finally)\b")


def _starts_statement(lines: list[str], line: int) -> bool:
    """Whether the code from `line` (1-based) on starts a statement of its own when what comes
    before it is a complete module: its first line of code is at column 0 (an indented one
    would continue the block before it) and not an `else`, `elif`, `except` or `finally`."""
    for text in lines[line - 1 :]:
        code = text.lstrip(" \t\f")
        if not code or code.startswith("#"):
            continue  # blank and comment lines do not count for indentation
        return len(code) == len(text) and _CONTINUATION.match(text) is None
    return True


def _positioned_nodes(statement: ast.stmt) -> list[ast.AST]:
    return [node for node in ast.walk(statement) if getattr(node, "end_lineno", None) is not None]


def first_line(statement: ast.stmt) -> int:
    """The line a top-level statement starts on: its first decorator's, for a definition."""
    decorators = getattr(statement, "decorator_list", None)
    return min(statement.lineno, *(d.lineno for d in decorators)) if decorators else statement.lineno


def statement_at(starts: list[int], line: int) -> int:
    """Index of the top-level statement whose stretch (from its first line, `starts`, up to
    the next one's) holds `line`; the first stretch also holds the lines before it."""
    return max(bisect.bisect_right(starts, line) - 1, 0)
