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
    AUTOGRAPH_OLD_FRAME,
    IPYTHON7_FRAME,
    IPYTHON_CELL,
    IPYTHON_FRAME,
    PYTHON_FRAME,
    cell_of,
    is_library_path,
    strip_ipython_call,
)
from tf_insight.explain.model import Frame, FrameOrigin, Incident, IncidentKind
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
_CLASS_NAME = re.compile(r"_?[A-Z]")
_TRACEBACK_HEADER = re.compile(r"^(?P<indent>[ \t>]*)Traceback \(most recent call last\):\s*$")
# Jupyter: "ValueError                                Traceback (most recent call last)"
_IPYTHON_HEADER = re.compile(
    r"^(?P<indent>[ \t]*)(?P<type>[A-Za-z_][\w.]*)\s+Traceback \(most recent call last\)\s*$"
)
_CHAIN_SEPARATOR = re.compile(
    r"^(?:During handling of the above exception, another exception occurred:"
    r"|The above exception was the direct cause of the following exception:)\s*$"
)
_IPYTHON_ARROW = re.compile(r"^[ \t]*-+> ?(?P<line>\d*) (?P<code>.*)$")
# `WARNING:tensorflow:message`; AutoGraph also prints its warnings as `WARNING: message`.
_TF_LOG_WARNING = re.compile(r"^WARNING:(?:(?P<logger>[\w.]+):| (?!All log messages before absl)(?=\S))"
    r"(?P<message>.*)$")
# absl's format (TF's Python logging under absl): `W0413 12:01:02.123456 1407 file.py:157] ...`
_ABSL_WARNING = re.compile(
    r"^W\d{4} \d\d:\d\d:\d\d\.\d+\s+\d+ (?P<logger>[\w.]+):\d+\] (?P<message>.*)$")
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
_FENCE = re.compile(r"^\s*(?:```|~~~)[\w+.-]*\s*$")
_QUOTE = re.compile(r"^[ \t]*> ?")
_LINK = re.compile(r"\[([^\]\n]{1,1000})\]\((?:https?|file|vscode[\w-]*):[^)\s]*\)")
_COLLAPSED = re.compile(r"^\s*(?:\d+ frames|\[\.\.\. skipping hidden \d+ frames?\])\s*$")
_FRAME_START = re.compile(r"^[ \t]*(?:File|Cell)\b")
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
_HEADER_TEXT = "Traceback (most recent call last)"
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


# A traceback inside a JSON string (VS Code's notebook error export): `File \"c:\\p\\x.py\"`,
# `Traceback (most recent call last):\n`.
_JSON_MARKERS = ('File \\"', "most recent call last)\\n", "most recent call last):\\n")
# The braces, and the quotes that open and close the strings (`"message": "`, `",`): escaped
# quotes are text.
_JSON_QUOTES = re.compile(r'^[ \t]*"\w+": "|(?<!\\)",?[ \t]*$|^[ \t]*[{}][ \t]*$', re.MULTILINE)
_JSON_ESCAPE = re.compile(r'\\(?:(["\\/nt])|u([0-9a-fA-F]{4}))')
_JSON_CHARACTERS = {'"': '"', "\\": "\\", "/": "/", "n": "\n", "t": "\t"}


def _json_character(escape: re.Match[str]) -> str:
    return _JSON_CHARACTERS[escape[1]] if escape[1] else chr(int(escape[2], 16))


def clean_text(text: str) -> str:
    """Normalise newlines, undo JSON string escapes around a traceback, and drop terminal
    escapes and NUL bytes."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")
    if "\\" in text and any(marker in text for marker in _JSON_MARKERS):
        text = _JSON_ESCAPE.sub(_json_character, _JSON_QUOTES.sub("", text))
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


# pytest's lines of the exception: `E       ValueError: message`.
_PYTEST_ERROR = re.compile(r"^E(?= {3,}\S)", re.MULTILINE)


def repair(text: str) -> str:
    """Undo what pasting does to a traceback: JSON string escapes, pytest's `E` margin,
    markdown fences (also glued to the text),
    backticks and bold around lines, `> ` quoting (issue trackers, e-mail), links around frame
    paths (Colab), full-width colons, collapsed-frame markers, frame lines wrapped by a narrow
    terminal or tracker, and tracebacks flattened onto a few long lines."""
    if "E   " in text:
        text = _PYTEST_ERROR.sub(" ", text)
    lines = text.split("\n")
    for _ in range(3):  # nested quotes
        quoted = sum(1 for line in lines if _QUOTE.match(line))
        filled = sum(1 for line in lines if line.strip())
        if not filled or quoted * 2 < filled:
            break
        lines = [_QUOTE.sub("", line, count=1) for line in lines]
    lines = _rejoin_wrapped([unmarked for line in lines
                             if not (_FENCE.match(line) or _COLLAPSED.match(line))
                             and (unmarked := _without_markup(line)) is not None])
    repaired: list[str] = []
    for line in _unflattened(lines):
        if "](" in line:
            line = _LINK.sub(r"\1", line)
        if "\uff1a" in line:
            line = _FULL_WIDTH_COLON.sub(": ", line)
        if repaired and _cut_frame(repaired[-1]):
            repaired[-1] = _join_cut_frame(repaired[-1], line.strip())
            continue
        repaired.append(line)
    return "\n".join(repaired)


_GLUED_FENCE_START = re.compile(r"^[ \t]*`{3,}(?=[^`\s])")
_GLUED_FENCE_END = re.compile(r"(?<=\S)[ \t]*`{3,}[ \t]*$")
_BOLD_LINE = re.compile(r"^(?P<indent>[ \t]*)\*\*(?P<body>\S.*?)(?:\*\*)?[ \t]*$")
_FULL_WIDTH_COLON = re.compile("\uff1a ?")


def _without_markup(line: str) -> str | None:
    """A line without the Markdown around it: a fence glued to its start or end (```` ```Traceback
    ````), `**bold**`, the backticks around a message quoted inline; None for a line of
    backticks only (the quotes of a block)."""
    if "`" not in line and "**" not in line:
        return line
    stripped = line.strip()
    if stripped and not stripped.strip("`"):
        return None
    line = _GLUED_FENCE_END.sub("", _GLUED_FENCE_START.sub("", line))
    bold = _BOLD_LINE.match(line)
    if bold is not None and _starts_structure(bold["body"]):
        line = bold["indent"] + bold["body"]
    body = line.lstrip()
    if body.startswith("`") and _starts_structure(body.lstrip("` ")):
        line = line[: len(line) - len(body)] + body.lstrip("` ")
        if line.rstrip().endswith("`") and line.count("`") % 2:
            line = line.rstrip().removesuffix("`")
    return line


# Where a traceback flattened onto one line (a tracker that dropped its newlines) had them:
# after its header, before each frame, before IPython's `---->` arrow.
# after its header, before each frame, before IPython's `---->` arrow, and around the lines of
# TensorFlow's and Keras's wrapper text.
_FLAT_BREAK = re.compile(
    r"(?<=\(most recent call last\):)[ \t]+(?=\S)|(?<=\(most recent call last\))[ \t]+(?=[^\s:])"
    r"|(?:(?<=was defined here:)|(?<=in user code:)|(?<=Graph execution error:)"
    r"|(?<=Error encountered:))[ \t]+"
    r"|[ \t]+(?=File \"[^\"\n]{1,1000}\", line \d+|File \S{1,1000}:\d+, in |Cell In ?\[\d*\], line"
    r"|-+> ?\d+ |(?:<ipython-input-\d+-[0-9a-f]+>|\S{1,1000}\.py) in [\w<]|\S{1,1000}\.py:\d+ [\w<]"
    r"|Exception encountered when calling|(?:Call a|A)rguments received by|• "
    r"|Could not automatically infer|Detected at node|The tensor <|During handling of the above"
    r"|<[^<>\n]{1,500}> was defined here:"
    r"|The above exception was)"
)
# A piece that runs on after its first line: a frame and its code, Keras's wrapper header and
# the message.
_FLAT_HEAD = re.compile(
    r"^(?P<head>(?:File \"[^\"\n]+\", line \d+, in |\S+\.py:\d+ )(?:<[^>\n]*>|[\w.]+)"
    r"(?:[ \t]+\*\*?(?=\s|$))?"
    r"|Exception encountered when calling (?:[\w.]+\.call\(\)|layer [\"'][^\"'\n]*[\"'] \(type [\w.]+\))\.)"
    r"[ \t]+(?P<rest>\S.*)$"
)
_FLAT_HEADER = re.compile(r"most recent call last\):?[ \t]+\S")
_IPYTHON_TYPE = re.compile(r"^[ \t>]*[A-Za-z_][\w.]*[ \t]+$")
# The exception line run on after the last code line: `... raise e ValueError: message`.
_FLAT_EXCEPTION = re.compile(
    r"[ \t](?=(?:[A-Za-z_]\w*\.)*_?[A-Z]\w*(?:Error|Exception|Warning|Exit|Interrupt):(?: |$))")


def _unflattened(lines: list[str]) -> list[str]:
    """Lines with the newlines of a flattened traceback put back; other lines as they were.
    A line counts as flattened when it holds two frames, a header with text after it, or
    an IPython frame with its arrow."""
    out: list[str] = []
    for whole in lines:
        for line in _header_apart(whole):
            _unflatten(line, out)
    return out


def _header_apart(line: str) -> list[str]:
    """A traceback header glued to the text before it (a progress bar without its newline,
    a sentence) on a line of its own; IPython's `Type   Traceback (...)` stays whole."""
    at = _head(line).find(_HEADER_TEXT)
    if at <= 0 or _IPYTHON_TYPE.match(line[:at]) or not line[:at].strip(" \t>*"):
        return [line]
    return [line[:at], line[at:]]


def _unflatten(line: str, out: list[str]) -> None:
    """Append `line` to `out`, as the lines it was made of if it is a flattened traceback."""
    head = _head(line)
    if not (head.count('File "') >= 2 or _FLAT_HEADER.search(head)
            or ("> " in head and " in " in head and IPYTHON7_FRAME.match(head)
                and _FLAT_BREAK.search(head))):
        out.append(line)
        return
    for piece in _FLAT_BREAK.split(line):
        first = _FLAT_HEAD.match(piece)
        if first is not None:
            out.append(first["head"])
            # a frame's code is indented under it
            piece = ("" if first["head"].startswith("Exception") else "    ") + first["rest"]
        out.extend(_FLAT_EXCEPTION.split(piece, maxsplit=1))


def _cut_frame(line: str) -> bool:
    """A frame line cut before its end (`File`, `File "/p/x`, `File "/p/x.py", line 3, in`,
    `File /p/x.py:3, in`): the rest is on the next line."""
    if not _FRAME_START.match(line):
        return False
    if line.rstrip().endswith((", in", ",", "line", "File", "Cell")):
        return True
    return not (PYTHON_FRAME.match(line) or IPYTHON_FRAME.match(line) or IPYTHON_CELL.match(line))


def _join_cut_frame(start: str, rest: str) -> str:
    """Rejoin a frame line: without a space inside the path, with one between its parts."""
    if start.endswith(" ") or not start.rstrip().endswith(("File", ",", "line", ", in")):
        return start + rest
    return f"{start} {rest}"


_FULL_SLACK = 12  # lines at most this much shorter than the width count as full
_MAX_WRAP_WIDTH = 160  # TensorFlow's one-line messages are longer: such a paste is unwrapped


def _rejoin_wrapped(lines: list[str]) -> list[str]:
    """Undo hard wrapping at a fixed width (a narrow terminal, an issue tracker, e-mail).

    A paste is wrapped when no line is longer than `_MAX_WRAP_WIDTH` and many lines end near
    the same width. Then a line continues the one above it when the break fell inside a word
    at the last column, or when its first word would not have fitted there (that is why a
    wrapper moved it) and it starts at column 0 (or 1: the space the break fell on) with
    nothing a traceback has there (a header, a frame, an exception, a log line).
    """
    widths = [len(line) for line in lines]
    width = max(widths, default=0)
    full = sum(1 for size in widths if size >= width - _FULL_SLACK)
    filled = sum(1 for size in widths if size)
    if not 20 <= width <= _MAX_WRAP_WIDTH or full < max(3, filled // 10):
        return lines
    joined: list[str] = []
    for line in lines:
        previous = joined[-1] if joined else ""
        if line and previous and (
            _broken_inside_word(previous, line, width)
            or _indent_then_carets(previous, line, width)
            or (_moved_by_wrapper(previous, line, width) and not line[1:2].isspace()
                and not _starts_structure(line.lstrip()))
        ):
            joined[-1] += line
        else:
            joined.append(line)
    return joined


def _broken_inside_word(previous: str, line: str, width: int) -> bool:
    """A hard break inside a word (or a run of carets): the line above fills the width."""
    if len(previous) != width:
        return False
    joint = previous[-1] + line[0]
    both_word = _WORD_CHAR.fullmatch(joint[0]) is not None and _WORD_CHAR.match(joint[1]) is not None
    return both_word or not set(joint) - set("^~")


def _indent_then_carets(previous: str, line: str, width: int) -> bool:
    """The indentation of a caret line, wrapped away from its carets."""
    return bool(previous) and not previous.strip() and (
        len(previous) == width or not set(line.strip()) - set("^~"))


def _moved_by_wrapper(previous: str, line: str, width: int) -> bool:
    if previous.rstrip().endswith(_HEADER_TEXT) or not set(previous.strip()) - set("^~ "):
        return False  # a header or a caret line is complete
    first_word = line.lstrip().split(" ", 1)[0]
    return len(previous) + 1 + len(first_word) > width  # trailing spaces count: kept by most


_WORD_CHAR = re.compile(r"\w")
# What starts a line of a traceback or log at column 0, even when the rest of it is wrapped.
_STRUCTURE = re.compile(
    r"(?:Traceback|File |Cell |During handling|The above exception|-+>"  # frames, arrows
    r"|[A-Za-z_][\w.]*(?:Error|Exception|Warning|Exit|Interrupt)\b"  # exception lines
    r"|(?:[a-z_]\w*\.){3,}\w"  # a qualified exception type, wrapped before its end
    r"|/|~/|[A-Za-z]:[\\/]|<[\w -]+>)"  # file paths: Python warnings, IPython 7 frames
)


def _starts_structure(line: str) -> bool:
    """Whether a line at column 0 is something a traceback or log puts there itself."""
    head = _head(line)
    return bool(
        _STRUCTURE.match(head)
        or _NOISE.match(head)
        or _TF_LOG_WARNING.match(head)
        or _ABSL_WARNING.match(head)
    )


def parse(text: str) -> ParsedText:
    """Find the tracebacks and warnings in `text` (all but the oldest of very many; of a
    paste longer than `_PARSED_LINES` lines, its start and its end)."""
    text, skipped_lines, skipped_middle = _without_middle(text)
    text = repair(clean_text(text))
    skipped = text.count(_HEADER_TEXT) - _PARSED_TRACEBACKS
    if skipped > 0:
        start = len(text)
        for _ in range(_PARSED_TRACEBACKS):
            start = text.rfind(_HEADER_TEXT, 0, start)
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
            text.count(_HEADER_TEXT, head_end, tail_start))


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
            line = _head(self.lines[self.index])
            if "Traceback" in line and self._traceback():
                continue
            if line.startswith("WARNING:") and (warning := _TF_LOG_WARNING.match(line)):
                self._log_warning(warning)
                continue
            if line[:1] == "W" and (absl := _ABSL_WARNING.match(line)):
                self._log_warning(absl)  # `W0413 12:01:02.123 140... file.py:157] message`
                continue
            if "Warning: " in line and (python_warning := _PYTHON_WARNING.match(line)):
                self._python_warning(python_warning)
                continue
            if _FRAME_HINT.search(line) and self._headerless_traceback():
                continue
            if _BARE_HINT.search(line) and (bare := _BARE_EXCEPTION.match(line)):
                self._bare_exception(bare)
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
                or _NOISE.match(line)
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
        head = _head(line).lstrip()
        return (exception_line(head) is None and not _starts_structure(head)
                and not _IPYTHON_HEADER.match(head))

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
            if line and not line[0].isspace() and (
                    self._ends_message(line) or _BARE_EXCEPTION.match(_head(line))):
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
