"""Text from files and pastes as a terminal may show it.

A source line, a file name or a message can hold control characters: an escape sequence would
be run by the terminal (OSC 52 writes the clipboard, others set the window title or clear the
screen), a newline in a file name would forge report lines, bidirectional overrides reorder
what is shown. Every text format shows them escaped, as git and ruff do (`\\x1b`, `\\n`,
`\\u202e`); JSON and SARIF carry the exact text.
"""

from __future__ import annotations

import re

# C0 controls but tab, DEL, C1 controls, line and paragraph separators, bidirectional controls
_CONTROL = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e"
                      "\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\r": "\\r"}


def printable(text: str, tabs: bool = False) -> str:
    """`text` with its control characters escaped (tabs too, unless `tabs`)."""
    if tabs:
        return _CONTROL.sub(_escape, text)
    return _CONTROL.sub(_escape, text).replace("\t", "\\t")


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


_LINE_BREAK = re.compile(r"(.?)[ \t]*\r?\n\s*(.?)")


def one_line(text: str) -> str:
    """`text` on one line: source quoted across lines (`self.w = f(\\n    a,\\n)`) is joined as
    a formatter joins it, `self.w = f(a)`. A finding's message, fix title and related notes are
    one line in every editor and report; a rule quoting a statement may quote several."""
    if "\n" not in text:
        return text
    return _LINE_BREAK.sub(_joined, text)


def _joined(match: re.Match[str]) -> str:
    before, after = match.group(1), match.group(2)
    closing = bool(after) and after in ")]}"
    if before == "," and closing:
        return after  # the trailing comma of an argument list split one per line
    if closing or (bool(before) and before in "([{"):
        return before + after
    return f"{before} {after}"
