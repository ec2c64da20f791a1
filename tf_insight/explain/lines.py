"""What the lines of pasted terminal output are: traceback headers, chain separators, log
warnings, log noise, and what starts a line of a traceback or log at column 0.

Shared by the paste repair (which must not join such lines to the one above) and the parser
(which reads them). Structure is in the first characters of a line: only those are matched.
"""

from __future__ import annotations

import re

# Structure (headers, log prefixes, exception types) is in the first characters of a line;
# matching only those keeps pathological multi-megabyte lines linear and cheap.
HEAD_CHARS = 4096
HEADER_TEXT = "Traceback (most recent call last)"
TRACEBACK_HEADER = re.compile(r"^(?P<indent>[ \t>]*)Traceback \(most recent call last\):\s*$")
# Jupyter: "ValueError                                Traceback (most recent call last)"
IPYTHON_HEADER = re.compile(
    r"^(?P<indent>[ \t]*)(?P<type>[A-Za-z_][\w.]*)\s+Traceback \(most recent call last\)\s*$"
)
CHAIN_SEPARATOR = re.compile(
    r"^(?:During handling of the above exception, another exception occurred:"
    r"|The above exception was the direct cause of the following exception:)\s*$"
)
# `WARNING:tensorflow:message`; AutoGraph also prints its warnings as `WARNING: message`.
TF_LOG_WARNING = re.compile(
    r"^WARNING:(?:(?P<logger>[\w.]+):| (?!All log messages before absl)(?=\S))(?P<message>.*)$")
# absl's format (TF's Python logging under absl): `W0413 12:01:02.123456 1407 file.py:157] ...`
ABSL_WARNING = re.compile(
    r"^W\d{4} \d\d:\d\d:\d\d\.\d+\s+\d+ (?P<logger>[\w.]+):\d+\] (?P<message>.*)$")
PYTHON_WARNING = re.compile(
    r"^(?P<path>\S.*?):(?P<line>\d+): (?P<category>[A-Z]\w*Warning): (?P<message>.*)$"
)
# Lines that never belong to an exception message: they end it.
NOISE = re.compile(
    r"^(?:[IWEF]\d{4} \d\d:\d\d:\d\d"  # absl C++ log lines
    r"|\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d[.,]\d+: [IWEF] "  # older TF C++ log lines
    r"|(?:INFO|WARNING|ERROR|DEBUG|CRITICAL):[\w.]+:"  # Python logging, default format
    r"|WARNING: All log messages before absl::InitializeLog"
    r"|Epoch \d+/\d+\s*$"
    r"|\s*\d+/\d+ [━\[=.>]"  # Keras progress bars
    r"|-{20,}\s*$"  # Jupyter's separator
    r"|(?:\$|>>>|In \[\d+\]:) )"  # shell and REPL prompts
)


def line_start(line: str) -> str:
    """The part of a line where its structure is."""
    return line[:HEAD_CHARS]


# What starts a line of a traceback or log at column 0, even when the rest of it is wrapped.
_STRUCTURE = re.compile(
    r"(?:Traceback|File |Cell |During handling|The above exception|-+>"  # frames, arrows
    r"|[A-Za-z_][\w.]*(?:Error|Exception|Warning|Exit|Interrupt)\b"  # exception lines
    r"|(?:[a-z_]\w*\.){3,}\w"  # a qualified exception type, wrapped before its end
    r"|/|~/|[A-Za-z]:[\\/]|<[\w -]+>)"  # file paths: Python warnings, IPython 7 frames
)


def starts_structure(line: str) -> bool:
    """Whether a line at column 0 is something a traceback or log puts there itself."""
    head = line_start(line)
    return bool(
        _STRUCTURE.match(head)
        or NOISE.match(head)
        or TF_LOG_WARNING.match(head)
        or ABSL_WARNING.match(head)
    )
