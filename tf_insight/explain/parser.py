"""Turning pasted terminal text into incidents: exceptions (with frames) and warnings.

The input is whatever the user copied: absl `I0000` lines, CUDA noise, ANSI escapes, progress
bars, several tracebacks, chained exceptions, Windows paths, Jupyter's traceback layout. Once
`repair` has undone the damage of copying, the parser reads it line by line with anchored
regular expressions (linear time: a 10 MB paste takes well under a second) and never raises on
any `str`. Frames and exception lines are read wherever they are: under a `Traceback` header,
or without one (a paste that starts mid-stack, an IPython fragment).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tf_insight.explain.frames import (
    AUTOGRAPH_OLD_FRAME,
    IPYTHON7_FRAME,
    IPYTHON_CELL,
    IPYTHON_FRAME,
    PYTHON_FRAME,
    cell_of,
    is_library_path,
    strip_ipython_call,
)
from tf_insight.explain.lines import (
    ABSL_WARNING,
    CHAIN_SEPARATOR,
    HEADER_TEXT,
    IPYTHON_HEADER,
    NOISE,
    PYTHON_WARNING,
    TF_LOG_WARNING,
    TRACEBACK_HEADER,
    line_start,
    starts_structure,
)
from tf_insight.explain.model import Frame, FrameOrigin, Incident, IncidentKind
from tf_insight.explain.repair import clean_text, repair
from tf_insight.explain.unwrap import short_type, unwrap

_TYPE_NAME = re.compile(r"[A-Za-z_][\w.]{0,200}")
_CLASS_NAME = re.compile(r"_?[A-Z]")
_IPYTHON_ARROW = re.compile(r"^[ \t]*-+> ?(?P<line>\d*) (?P<code>.*)$")
# Lines that may start a traceback without its header (checked in full by the frame patterns).
_FRAME_HINT = re.compile(r"^[ \t]*(?:File|Cell) |\.pyx? in |<ipython-input-|\.py:\d+ [\w<]")
_CARETS = frozenset("^~ ")  # Python 3.11+ marks the failing expression under the code
_IPYTHON_FRAMES = (IPYTHON_FRAME, IPYTHON_CELL, IPYTHON7_FRAME)
# IPython's numbered context lines, also when a paste lost their indentation.
_CONTEXT_LINE = re.compile(r"^[ \t]*\d+ ")
_MAX_MESSAGE_CHARS = 200_000  # longer messages are cut (a 10 MB paste is mostly noise)
# Only the last tracebacks of a long paste are parsed (the last one is explained); earlier
# ones are counted. Keeps a paste of thousands of repeated tracebacks fast.
_PARSED_TRACEBACKS = 20
_PARSED_LINES = 20_000  # of a longer paste, the first and the last lines are read
_PARSED_HEAD_LINES = 2_000
_MAX_CONTINUATION_LINES = 40


@dataclass
class ParsedText:
    """Everything recognised in one paste, in input order."""

    incidents: list[Incident] = field(default_factory=list)
    tracebacks: int = 0
    skipped_tracebacks: int = 0  # counted in `tracebacks`, but not parsed
    truncated: bool = False
    skipped_lines: int = 0  # from the middle of a very long paste, not parsed
    text: str = ""  # the input, cleaned and repaired (the part that was parsed)

    @property
    def exceptions(self) -> list[Incident]:
        return [incident for incident in self.incidents if incident.kind is IncidentKind.EXCEPTION]

    @property
    def warnings(self) -> list[Incident]:
        return [incident for incident in self.incidents if incident.kind is IncidentKind.WARNING]


def exception_line(line: str) -> tuple[str, str] | None:
    """`(type, message)` from `Type: message` or a bare `Type` line (at any indentation: pastes
    lose and add it), else None. The type's last part is a class name (`CapWords`, or
    `_Private`), and Python puts a space after its colon: a code line (`x = f()`), a cut
    Windows path (`D:\\Ana`) or a URL is no exception line."""
    name, colon, message = line.partition(":")
    name = name.strip()
    if _TYPE_NAME.fullmatch(name) is None or not _CLASS_NAME.match(name.rsplit(".", 1)[-1]):
        return None
    if colon and message[:1] not in ("", " ", "\t"):
        return None
    return name, message.removeprefix(" ")


def parse(text: str) -> ParsedText:
    """Find the tracebacks and warnings in `text` (all but the oldest of very many; of a
    paste longer than `_PARSED_LINES` lines, its start and its end)."""
    text, skipped_lines, skipped_middle = _without_middle(text)
    text = repair(clean_text(text))
    skipped = text.count(HEADER_TEXT) - _PARSED_TRACEBACKS
    if skipped > 0:
        start = len(text)
        for _ in range(_PARSED_TRACEBACKS):
            start = text.rfind(HEADER_TEXT, 0, start)
        text = text[text.rfind("\n", 0, start) + 1 :]
    result = _Parser(text.split("\n")).run()
    result.text = text
    skipped = max(skipped, 0) + skipped_middle
    if skipped > 0:
        result.skipped_tracebacks = skipped
        result.tracebacks += skipped
    result.skipped_lines = skipped_lines
    return result


def _without_middle(text: str) -> tuple[str, int, int]:
    """A paste of more than `_PARSED_LINES` lines (a traceback of 200,000 frames took 10 s)
    without its middle: the first lines (where a traceback starts, with the user's outermost
    frames) and the last ones (the innermost frames and the error); how many lines and
    tracebacks were left out."""
    lines = text.count("\n") + 1
    if lines <= _PARSED_LINES:
        return text, 0, 0
    head_end = -1
    for _ in range(_PARSED_HEAD_LINES):
        head_end = text.index("\n", head_end + 1)
    tail_start = len(text)
    for _ in range(_PARSED_LINES - _PARSED_HEAD_LINES):
        tail_start = text.rindex("\n", 0, tail_start)
    return (text[:head_end + 1] + text[tail_start + 1:], lines - _PARSED_LINES,
            text.count(HEADER_TEXT, head_end, tail_start))


# An exception line outside any traceback: a paste of the error line only, the last lines,
# a message quoted in prose.
# TF 1.x's session summary line: `ResourceExhaustedError (see above for traceback): OOM ...`.
_BARE_EXCEPTION = re.compile(
    r"^\s*(?P<type>(?:[A-Za-z_]\w*\.)*[A-Za-z_]\w*(?:Error|Exception|Exit|Interrupt|Warning))"
    r"(?: \(see above for traceback\))?:[ \t]*(?P<message>.*)$")
_BARE_HINT = re.compile(r"Error|Exception|Warning|Exit|Interrupt")


class _Parser:
    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.index = 0
        self.result = ParsedText()
        self.chained = False

    def run(self) -> ParsedText:
        while self.index < len(self.lines):
            line = line_start(self.lines[self.index])
            if "Traceback" in line and self._traceback():
                continue
            if line.startswith("WARNING:") and (warning := TF_LOG_WARNING.match(line)):
                self._log_warning(warning)
                continue
            if line[:1] == "W" and (absl := ABSL_WARNING.match(line)):
                self._log_warning(absl)  # `W0413 12:01:02.123 140... file.py:157] message`
                continue
            if "Warning: " in line and (python_warning := PYTHON_WARNING.match(line)):
                self._python_warning(python_warning)
                continue
            if _FRAME_HINT.search(line) and self._headerless_traceback():
                continue
            if _BARE_HINT.search(line) and (bare := _BARE_EXCEPTION.match(line)):
                self._bare_exception(bare)
                continue
            if line.startswith(("During", "The above")) and CHAIN_SEPARATOR.match(line):
                self.chained = True
            elif line.strip():  # anything else between two tracebacks breaks the chain
                self.chained = False
            self.index += 1
        return self.result

    # Tracebacks -------------------------------------------------------------------------

    def _traceback(self) -> bool:
        line = line_start(self.lines[self.index])
        header = TRACEBACK_HEADER.match(line)
        ipython = None if header else IPYTHON_HEADER.match(line)
        if header is None and ipython is None:
            return False
        prefix = header["indent"] if header else ipython["indent"] if ipython else ""
        start = self.index
        self.index += 1
        frames = self._traceback_frames(prefix)
        exception = self._exception(prefix, ipython["type"] if ipython else None)
        if exception is None:
            if not frames:  # a lone header with nothing after it: not worth reporting
                self.index = start + 1
                return True
            # truncated paste: frames but no exception line (IPython's header still names it)
            exception = (ipython["type"] if ipython else "", "")
        self.result.tracebacks += 1
        qualified, raw_message = exception
        self._add_exception(qualified, raw_message, frames, start)
        return True

    def _headerless_traceback(self) -> bool:
        """Frames with no header above them: a paste that starts mid-stack, an IPython
        fragment, frames at odd indentation. IPython 7 frames count only with their `---->`
        arrow (a sentence can look like `x.py in f`)."""
        start = self.index
        frames = self._traceback_frames("")
        if not any(frame.line for frame in frames):
            self.index = start
            return False
        self.result.tracebacks += 1
        qualified, raw_message = self._exception("", None) or ("", "")
        self._add_exception(qualified, raw_message, frames, start)
        return True

    def _dedent(self, line: str, prefix: str) -> str:
        return line[len(prefix) :] if prefix and line.startswith(prefix) else line

    def _traceback_frames(self, prefix: str) -> list[Frame]:
        frames: list[Frame] = []
        frame_indent = 0
        while self.index < len(self.lines):
            line = self._dedent(self.lines[self.index], prefix)
            match = (
                PYTHON_FRAME.match(line) or IPYTHON_FRAME.match(line) or IPYTHON_CELL.match(line)
                or IPYTHON7_FRAME.match(line) or AUTOGRAPH_OLD_FRAME.match(line)
            )
            if match is not None:
                frame_indent = len(match["indent"])
                frames.append(self._frame_with_code(match, prefix))
                continue
            indent = len(line) - len(line.lstrip())
            if indent and frames and indent <= frame_indent and exception_line(line) is not None:
                break  # the exception, at the frames' own (odd) indentation
            if (
                not line.strip()
                or indent
                or line.lstrip().startswith("-->")
                or _CONTEXT_LINE.match(line)
                or NOISE.match(line)
            ):
                self.index += 1  # code, carets, Jupyter's context lines, interleaved log lines
                continue
            break
        return frames

    def _frame_with_code(self, match: re.Match[str], prefix: str) -> Frame:
        path = match["path"]
        groups = match.groupdict()
        function = strip_ipython_call(groups.get("function") or "")  # `Cell In[5], line 3`: not named
        indent = len(match["indent"])
        self.index += 1
        code: str | None = None
        line_number = int(groups["line"]) if groups.get("line") else 0
        first = True
        while self.index < len(self.lines):  # the code and caret lines are indented deeper
            line = self._dedent(self.lines[self.index], prefix)
            stripped = line.strip()
            arrow = _IPYTHON_ARROW.match(line)
            deeper = len(line) - len(line.lstrip()) > indent
            if (
                not stripped
                or PYTHON_FRAME.match(line)
                or IPYTHON_FRAME.match(line)
                or not (deeper or arrow or not set(stripped) - _CARETS
                        or (first and self._lost_indentation(line))
                        or (match.re in _IPYTHON_FRAMES and _CONTEXT_LINE.match(line)))
            ):
                break
            first = False
            if arrow is not None:  # Jupyter marks the failing line among its context lines
                code = arrow["code"].strip()
                line_number = line_number or int(arrow["line"] or 0)
            elif code is None and set(stripped) - _CARETS:
                code = stripped
            self.index += 1
        return Frame(
            path=path,
            line=line_number,
            function=function,
            code=code,
            is_user=not is_library_path(path),
            # a frame marked `*`/`**`, or written `path:line function`, comes from AutoGraph's
            # "in user code:" section
            origin=FrameOrigin.USER_CODE
            if groups.get("marker") or match.re is AUTOGRAPH_OLD_FRAME else FrameOrigin.TRACEBACK,
            autograph_marker=groups.get("marker") or "",
            cell=cell_of(path),
        )

    @staticmethod
    def _lost_indentation(line: str) -> bool:
        """A frame's code line that a paste moved to the frame's own column: anything right
        below a frame that is not an exception line, a frame or a log line."""
        head = line_start(line).lstrip()
        return (exception_line(head) is None and not starts_structure(head)
                and not IPYTHON_HEADER.match(head))

    def _exception(self, prefix: str, ipython_type: str | None) -> tuple[str, str] | None:
        """The `Type: message` after the frames; the message runs to the next structure."""
        if self.index >= len(self.lines):
            return None
        first = self._dedent(self.lines[self.index], prefix)
        parsed = exception_line(first)
        if parsed is None:
            if ipython_type is None:
                return None
            qualified, first_line = ipython_type, first
        else:
            qualified, first_line = parsed
        self.index += 1
        return qualified, self._message(prefix, first_line)

    def _bare_exception(self, found: re.Match[str]) -> None:
        """An exception line with no frames above it, and the lines that continue its
        message (a warning class makes it a warning)."""
        start = self.index
        self.index += 1
        raw = self._message("", found["message"]).strip()
        unwrapped = unwrap(found["type"], raw)
        kind = IncidentKind.WARNING if found["type"].endswith("Warning") else IncidentKind.EXCEPTION
        self.result.incidents.append(
            Incident(kind=kind, type=unwrapped.type or "", qualified_type=found["type"],
                     message=unwrapped.message, raw_message=raw,
                     frames=tuple(unwrapped.frames), layer=unwrapped.layer,
                     call_arguments=unwrapped.call_arguments,
                     wrappers=tuple(unwrapped.wrappers), chained=self.chained,
                     input_line=start + 1))
        self.chained = False

    def _message(self, prefix: str, first_line: str) -> str:
        """A message from its first line on, to the next structure (cut when very long)."""
        message_lines = [first_line]
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
        return "\n".join(message_lines).rstrip()

    @staticmethod
    def _ends_message(line: str) -> bool:
        if not line or line[0] in " \t•":
            return False
        line = line_start(line)
        return bool(
            TRACEBACK_HEADER.match(line)
            or IPYTHON_HEADER.match(line)
            or CHAIN_SEPARATOR.match(line)
            or NOISE.match(line)
            or TF_LOG_WARNING.match(line)
            or PYTHON_WARNING.match(line)
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
            if line and not line[0].isspace() and (
                    self._ends_message(line) or _BARE_EXCEPTION.match(line_start(line))):
                break
            if "Traceback" in line and (
                TRACEBACK_HEADER.match(line) or IPYTHON_HEADER.match(line)
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
                qualified_type=f"WARNING:{match['logger']}" if match["logger"] else "WARNING",
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
            cell=cell_of(path),
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
