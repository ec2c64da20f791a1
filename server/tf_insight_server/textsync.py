"""Incremental text sync, faster than pygls's.

pygls applies an incremental change by splitting the whole document into lines and writing it
out again (about 2 ms per keystroke on a 2,000-line file here: 1,000 quick edits took 2.5 s to
apply), and it splits with `str.splitlines`, which also breaks on form feeds and U+2028 —
unlike LSP. Here a change is spliced into the text at offsets found by scanning for LSP line
breaks only (`\\n`, `\\r\\n`, `\\r`); `pygls_workarounds` hands pygls the result.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from lsprotocol import types

from tf_insight_server.conversions import from_client_column

_BREAK = re.compile(r"\r\n|\r|\n")


def offset_at(text: str, position: types.Position, encoding: str) -> int:
    """The character offset of an LSP position (clamped to the text)."""
    start = 0
    if "\r" not in text:
        if position.line > 0:
            rest = text.split("\n", position.line)  # in C: far faster than a find() loop
            if len(rest) <= position.line:
                return len(text)
            start = len(text) - len(rest[-1])
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
    else:
        breaks = _BREAK.finditer(text)
        for _ in range(position.line):
            found = next(breaks, None)
            if found is None:
                return len(text)
            start = found.end()
        found = _BREAK.search(text, start)
        end = found.start() if found is not None else len(text)
    return start + from_client_column(text[start:end], position.character, encoding)


def apply_changes(text: str, changes: Sequence[types.TextDocumentContentChangeEvent],
                  encoding: str) -> str:
    """`text` after the client's changes, in order (one without a range replaces it all)."""
    for change in changes:
        if not isinstance(change, types.TextDocumentContentChangePartial):
            text = change.text
            continue
        start = offset_at(text, change.range.start, encoding)
        end = offset_at(text, change.range.end, encoding)
        if end < start:
            start, end = end, start
        text = text[:start] + change.text + text[end:]
    return text
