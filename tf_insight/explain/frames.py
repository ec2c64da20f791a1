"""Recognising frame lines and deciding whether a frame is user code or library code."""

from __future__ import annotations

import re

# `File "/p/x.py", line 12, in f` (CPython) and, for AutoGraph's "in user code:" section,
# the same followed by "  *" or "  **".
PYTHON_FRAME = re.compile(
    r'^(?P<indent>[ \t]*)File "(?P<path>[^"]+)", line (?P<line>\d+)'
    r"(?:, in (?P<function>.*?))?(?:\s+(?P<marker>\*\*?))?\s*$"
)
# IPython/Jupyter: `File ~/p/x.py:12, in f(x)` and `Cell In[3], line 5`.
IPYTHON_FRAME = re.compile(
    r"^(?P<indent>[ \t]*)File (?P<path>\S.*?):(?P<line>\d+), in (?P<function>\w+)"
)
IPYTHON_CELL = re.compile(r"^(?P<indent>[ \t]*)Cell (?P<path>In ?\[\d*\]), line (?P<line>\d+)")

_LIBRARY_PATH = re.compile(
    r"[\\/](?:site|dist)-packages[\\/]"  # installed packages (venvs too)
    r"|__autograph_generated_file"  # AutoGraph's converted copies of functions
    r"|^<frozen "  # frozen stdlib modules
    r"|[\\/]lib[\\/]python\d(?:\.\d+)?[\\/]"  # POSIX stdlib
    r"|[\\/](?:python\d+|anaconda\d*|miniconda\d*|envs[\\/][^\\/]+)[\\/]lib[\\/]",  # Windows
    re.IGNORECASE,
)


def is_library_path(path: str) -> bool:
    """True for frames in installed packages, the standard library or generated code."""
    return _LIBRARY_PATH.search(path) is not None


def strip_ipython_call(function: str) -> str:
    """IPython prints `in f(x, y)`; keep the name only."""
    return function.split("(", 1)[0].strip()
