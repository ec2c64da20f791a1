"""Turning pasted terminal text into incidents: exceptions (with frames) and warnings.

The input is whatever the user copied: absl `I0000` lines, CUDA noise, ANSI escapes, progress
bars, several tracebacks, chained exceptions, Windows paths, Jupyter's traceback layout. The
parser reads it line by line with anchored regular expressions (linear time: a 10 MB paste
takes well under a second) and never raises on any `str`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tf_insight.explain.frames import (
    IPYTHON_CELL,
    IPYTHON_FRAME,
    PYTHON_FRAME,
    is_library_path,
    strip_ipython_call,
)
from tf_insight.explain.model import Frame, Incident, IncidentKind
from tf_insight.explain.unwrap import short_type, unwrap

# Terminal escapes: colours and Keras 3's bold messages (CSI), window titles (OSC).
_C1_SEQUENCE = re.compile(r"\x9b[0-?]{0,32}[ -/]{0,4}[@-~]|\x9d[^\x07\x9c\n]{0,512}[\x07\x9c]?")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_ANSI = re.compile(r"\x1b(?:\[[0-9;?]{0,32}[A-Za-z]|\][^\x07\n]{0,512}(?:\x07|\x1b\\))")
# Keras 3's bold markers as left by a terminal copy that dropped the ESC byte.
_BARE_BOLD = ("[1m", "[0m")
# Structure (headers, log prefixes, exception types) is in the first characters of a line;
# matching only those keeps pathological multi-megabyte lines linear and cheap.
_HEAD_CHARS = 4096
_TYPE_NAME = re.compile(r"[A-Za-z_][\w.]{0,200}")
_TRACEBACK_HEADER = re.compile(r"^(?P<indent>[ \t>]*)Traceback \(most recent call last\):\s*$")
# Jupyter: "ValueError                                Traceback (most recent call last)"
_IPYTHON_HEADER = re.compile(
    r"^(?P<type>[A-Za-z_][\w.]*)\s{2,}Traceback \(most recent call last\)\s*$"
)
_CHAIN_SEPARATOR = re.compile(
    r"^(?:During handling of the above exception, another exception occurred:"
    r"|The above exception was the direct cause of the following exception:)\s*$"
)
_IPYTHON_ARROW = re.compile(r"^-+> ?\d* (?P<code>.*)$")
_TF_LOG_WARNING = re.compile(r"^WARNING:(?P<logger>[\w.]+):(?P<message>.*)$")
_PYTHON_WARNING = re.compile(
    r"^(?P<path>\S.*?):(?P<line>\d+): (?P<category>[A-Z]\w*Warning): (?P<message>.*)$"
)
# Lines that never belong to an exception message: they end it.
_NOISE = re.compile(
    r"^(?:[IWEF]\d{4} \d\d:\d\d:\d\d"  # absl C++ log lines
    r"|\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d[.,]\d+: [IWEF] "  # older TF C++ log lines
    r"|(?:INFO|WARNING|ERROR|DEBUG|CRITICAL):[\w.]+:"  # Python logging, default format
    r"|WARNING: All log messages before absl::InitializeLog"
    r"|Epoch \d+/\d+\s*$"
    r"|\s*\d+/\d+ [━\[=.>]"  # Keras progress bars
    r"|-{20,}\s*$"  # Jupyter's separator
    r"|(?:\$|>>>|In \[\d+\]:) )"  # shell and REPL prompts
)
_MAX_MESSAGE_CHARS = 200_000  # longer messages are cut (a 10 MB paste is mostly noise)
# Only the last tracebacks of a long paste are parsed (the last one is explained); earlier
# ones are counted. Keeps a paste of thousands of repeated tracebacks fast.
_PARSED_TRACEBACKS = 20
_HEADER_TEXT = "Traceback (most recent call last)"
_MAX_CONTINUATION_LINES = 40


@dataclass
class ParsedText:
    """Everything recognised in one paste, in input order."""

    incidents: list[Incident] = field(default_factory=list)
    tracebacks: int = 0
    skipped_tracebacks: int = 0  # counted in `tracebacks`, but not parsed
    truncated: bool = False

    @property
    def exceptions(self) -> list[Incident]:
        return [incident for incident in self.incidents if incident.kind is IncidentKind.EXCEPTION]

    @property
    def warnings(self) -> list[Incident]:
        return [incident for incident in self.incidents if incident.kind is IncidentKind.WARNING]


def clean_text(text: str) -> str:
    """Normalise newlines and drop terminal escapes and NUL bytes."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")
    if "\x1b" in text:
        text = _ANSI.sub("", text)
    for marker in _BARE_BOLD:
        text = text.replace(marker, "")
    return without_controls(text)


def without_controls(text: str) -> str:
    """Text safe to print on a terminal: 8-bit (C1) escape sequences and every other control
    character but newline and tab removed (a backspace or `\r` in a paste, or in a source
    line read from disk, could otherwise rewrite what the terminal shows)."""
    if _CONTROL.search(text) is None:
        return text
    return _CONTROL.sub("", _C1_SEQUENCE.sub("", text))


def _head(line: str) -> str:
    return line[:_HEAD_CHARS]


def exception_line(line: str) -> tuple[str, str] | None:
    """`(type, message)` from `Type: message` or a bare `Type` line, else None."""
    name, _, message = line.partition(":")
    name = name.rstrip()
    if _TYPE_NAME.fullmatch(name) is None:
        return None
    return name, message.removeprefix(" ")


def parse(text: str) -> ParsedText:
    """Find the tracebacks and warnings in `text` (all but the oldest of very many)."""
    text = clean_text(text)
    skipped = text.count(_HEADER_TEXT) - _PARSED_TRACEBACKS
    if skipped > 0:
        start = len(text)
        for _ in range(_PARSED_TRACEBACKS):
            start = text.rfind(_HEADER_TEXT, 0, start)
        text = text[text.rfind("\n", 0, start) + 1 :]
    result = _Parser(text.split("\n")).run()
    if skipped > 0:
        result.skipped_tracebacks = skipped
        result.tracebacks += skipped
    return result


class _Parser:
    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.index = 0
        self.result = ParsedText()
        self.chained = False

    def run(self) -> ParsedText:
        while self.index < len(self.lines):
            line = _head(self.lines[self.index])
            if "Traceback" in line and self._traceback():
                continue
            if line.startswith("WARNING:") and (warning := _TF_LOG_WARNING.match(line)):
                self._log_warning(warning)
                continue
            if "Warning: " in line and (python_warning := _PYTHON_WARNING.match(line)):
                self._python_warning(python_warning)
                continue
            if line.startswith(("During", "The above")) and _CHAIN_SEPARATOR.match(line):
                self.chained = True
            elif line.strip():  # anything else between two tracebacks breaks the chain
                self.chained = False
            self.index += 1
        return self.result

    # Tracebacks -------------------------------------------------------------------------

    def _traceback(self) -> bool:
        line = _head(self.lines[self.index])
        header = _TRACEBACK_HEADER.match(line)
        ipython = None if header else _IPYTHON_HEADER.match(line)
        if header is None and ipython is None:
            return False
        prefix = header["indent"] if header else ""
        start = self.index
        self.index += 1
        frames = self._traceback_frames(prefix)
        exception = self._exception(prefix, ipython["type"] if ipython else None)
        if exception is None:
            if not frames:  # a lone header with nothing after it: not worth reporting
                self.index = start + 1
                return True
            exception = ("", "")  # truncated paste: frames but no exception line
        self.result.tracebacks += 1
        qualified, raw_message = exception
        self._add_exception(qualified, raw_message, frames, start)
        return True

    def _dedent(self, line: str, prefix: str) -> str:
        return line[len(prefix) :] if prefix and line.startswith(prefix) else line

    def _traceback_frames(self, prefix: str) -> list[Frame]:
        frames: list[Frame] = []
        while self.index < len(self.lines):
            line = self._dedent(self.lines[self.index], prefix)
            match = (
                PYTHON_FRAME.match(line) or IPYTHON_FRAME.match(line) or IPYTHON_CELL.match(line)
            )
            if match is not None:
                frames.append(self._frame_with_code(match, prefix))
                continue
            if (
                not line.strip()
                or line[:1] in " \t"
                or line.startswith("-->")
                or _NOISE.match(line)
            ):
                self.index += 1  # code, carets, Jupyter's context lines, interleaved log lines
                continue
            break
        return frames

    def _frame_with_code(self, match: re.Match[str], prefix: str) -> Frame:
        path = match["path"]
        groups = match.groupdict()
        function = strip_ipython_call(groups.get("function") or "<cell>")
        indent = len(match["indent"])
        self.index += 1
        code: str | None = None
        while self.index < len(self.lines):  # the code and caret lines are indented deeper
            line = self._dedent(self.lines[self.index], prefix)
            stripped = line.strip()
            arrow = _IPYTHON_ARROW.match(line)
            deeper = len(line) - len(line.lstrip()) > indent
            if (
                not stripped
                or not (deeper or arrow)
                or PYTHON_FRAME.match(line)
                or IPYTHON_FRAME.match(line)
            ):
                break
            if arrow is not None:  # Jupyter marks the failing line among its context lines
                code = arrow["code"].strip()
            elif code is None and set(stripped) - set("^~ "):
                code = stripped
            self.index += 1
        return Frame(
            path=path,
            line=int(match["line"]),
            function=function,
            code=code,
            is_user=not is_library_path(path),
        )

    def _exception(self, prefix: str, ipython_type: str | None) -> tuple[str, str] | None:
        """The `Type: message` after the frames; the message runs to the next structure."""
        if self.index >= len(self.lines):
            return None
        first = self._dedent(self.lines[self.index], prefix)
        parsed = exception_line(first)
        if parsed is None:
            if ipython_type is None:
                return None
            qualified, message_lines = ipython_type, [first]
        else:
            qualified, message_lines = parsed[0], [parsed[1]]
        self.index += 1
        size = len(message_lines[0])
        while self.index < len(self.lines):
            line = self._dedent(self.lines[self.index], prefix)
            if self._ends_message(line):
                break
            size += len(line) + 1
            if size <= _MAX_MESSAGE_CHARS:
                message_lines.append(line)
            else:
                self.result.truncated = True
            self.index += 1
        return qualified, "\n".join(message_lines).rstrip()

    @staticmethod
    def _ends_message(line: str) -> bool:
        if not line or line[0] in " \t•":
            return False
        line = _head(line)
        return bool(
            _TRACEBACK_HEADER.match(line)
            or _IPYTHON_HEADER.match(line)
            or _CHAIN_SEPARATOR.match(line)
            or _NOISE.match(line)
            or _TF_LOG_WARNING.match(line)
            or _PYTHON_WARNING.match(line)
        )

    def _add_exception(
        self, qualified: str, raw_message: str, frames: list[Frame], start: int
    ) -> None:
        unwrapped = unwrap(qualified or "", raw_message)
        self.result.incidents.append(
            Incident(
                kind=IncidentKind.EXCEPTION,
                type=unwrapped.type or "",
                qualified_type=qualified,
                message=unwrapped.message,
                raw_message=raw_message,
                frames=(*frames, *unwrapped.frames),
                layer=unwrapped.layer,
                call_arguments=unwrapped.call_arguments,
                wrappers=tuple(unwrapped.wrappers),
                chained=self.chained,
                input_line=start + 1,
            )
        )
        self.chained = False

    # Warnings ---------------------------------------------------------------------------

    def _continuation(self) -> list[str]:
        """Lines after a warning's first line that still belong to it."""
        lines: list[str] = []
        while self.index < len(self.lines) and len(lines) < _MAX_CONTINUATION_LINES:
            line = self.lines[self.index]
            if line and not line[0].isspace() and self._ends_message(line):
                break
            if "Traceback" in line and (
                _TRACEBACK_HEADER.match(line) or _IPYTHON_HEADER.match(line)
            ):
                break
            lines.append(line)
            self.index += 1
        while lines and not lines[-1].strip():
            lines.pop()
        return lines

    def _log_warning(self, match: re.Match[str]) -> None:
        start = self.index
        self.index += 1
        message = "\n".join([match["message"], *self._continuation()])
        self.result.incidents.append(
            Incident(
                kind=IncidentKind.WARNING,
                type="WARNING",
                qualified_type=f"WARNING:{match['logger']}",
                message=message.strip(),
                raw_message=message,
                input_line=start + 1,
            )
        )

    def _python_warning(self, match: re.Match[str]) -> None:
        start = self.index
        self.index += 1
        code: str | None = None
        following = self.lines[self.index] if self.index < len(self.lines) else ""
        if following.startswith((" ", "\t")) and following.strip():
            code = following.strip()  # Python prints the source line that warned
            self.index += 1
        path = match["path"]
        frame = Frame(
            path=path,
            line=int(match["line"]),
            function="",
            code=code,
            is_user=not is_library_path(path),
        )
        category = match["category"]
        self.result.incidents.append(
            Incident(
                kind=IncidentKind.WARNING,
                type=short_type(category),
                qualified_type=category,
                message=match["message"].strip(),
                raw_message=match["message"],
                frames=(frame,),
                input_line=start + 1,
            )
        )
