"""Undoing what copying did to pasted terminal text, before it is parsed.

Terminal escapes and control characters, JSON string escapes (a notebook's error exported as
JSON), pytest's `E` margin, Markdown (fences, also glued to the text; `**bold**`; backticks),
`> ` quoting, Colab's links around paths, full-width colons, collapsed-frame markers, lines
hard-wrapped by a terminal or a tracker, tracebacks flattened onto a few long lines, and frame
lines cut in two. Line by line with anchored patterns: linear in the size of the paste.
"""

from __future__ import annotations

import re

from tf_insight.explain.frames import IPYTHON7_FRAME, IPYTHON_CELL, IPYTHON_FRAME, PYTHON_FRAME
from tf_insight.explain.lines import HEADER_TEXT, line_start, starts_structure

# Terminal escapes: colours and Keras 3's bold messages (CSI), window titles (OSC).
_C1_SEQUENCE = re.compile(r"\x9b[0-?]{0,32}[ -/]{0,4}[@-~]|\x9d[^\x07\x9c\n]{0,512}[\x07\x9c]?")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_ANSI = re.compile(r"\x1b(?:\[[0-9;?]{0,32}[A-Za-z]|\][^\x07\n]{0,512}(?:\x07|\x1b\\))")
# Keras 3's bold markers as left by a terminal copy that dropped the ESC byte.
_BARE_BOLD = ("[1m", "[0m")
_FENCE = re.compile(r"^\s*(?:```|~~~)[\w+.-]*\s*$")
_QUOTE = re.compile(r"^[ \t]*> ?")
_LINK = re.compile(r"\[([^\]\n]{1,1000})\]\((?:https?|file|vscode[\w-]*):[^)\s]*\)")
_COLLAPSED = re.compile(r"^\s*(?:\d+ frames|\[\.\.\. skipping hidden \d+ frames?\])\s*$")
_FRAME_START = re.compile(r"^[ \t]*(?:File|Cell)\b")

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


# pytest's lines of the exception: `E       ValueError: message`.
_PYTEST_ERROR = re.compile(r"^E(?= {3,}\S)", re.MULTILINE)


def repair(text: str) -> str:
    """Undo what pasting does to a traceback: pytest's `E` margin, Markdown fences (also glued
    to the text), backticks and bold around lines, `> ` quoting (issue trackers, e-mail), links
    around frame paths (Colab), full-width colons, collapsed-frame markers, frame lines wrapped
    by a narrow terminal or tracker, and tracebacks flattened onto a few long lines."""
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
    if bold is not None and starts_structure(bold["body"]):
        line = bold["indent"] + bold["body"]
    body = line.lstrip()
    if body.startswith("`") and starts_structure(body.lstrip("` ")):
        line = line[: len(line) - len(body)] + body.lstrip("` ")
        if line.rstrip().endswith("`") and line.count("`") % 2:
            line = line.rstrip().removesuffix("`")
    return line


# Where a traceback flattened onto one line (a tracker that dropped its newlines) had them:
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
    at = line_start(line).find(HEADER_TEXT)
    if at <= 0 or _IPYTHON_TYPE.match(line[:at]) or not line[:at].strip(" \t>*"):
        return [line]
    return [line[:at], line[at:]]


def _unflatten(line: str, out: list[str]) -> None:
    """Append `line` to `out`, as the lines it was made of if it is a flattened traceback."""
    head = line_start(line)
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
                and not starts_structure(line.lstrip()))
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
    if previous.rstrip().endswith(HEADER_TEXT) or not set(previous.strip()) - set("^~ "):
        return False  # a header or a caret line is complete
    first_word = line.lstrip().split(" ", 1)[0]
    return len(previous) + 1 + len(first_word) > width  # trailing spaces count: kept by most


_WORD_CHAR = re.compile(r"\w")
