"""Recognising frame lines and deciding whether a frame is user code or library code."""

from __future__ import annotations

import re

from tf_insight.explain.model import FrameOrigin, Incident, IncidentKind

# `File "/p/x.py", line 12, in f` (CPython) and, for AutoGraph's "in user code:" section,
# the same followed by "  *" or "  **".
PYTHON_FRAME = re.compile(
    r'^(?P<indent>[ \t]*)File "(?P<path>[^"]+)", line (?P<line>\d+)'
    r"(?:, in (?P<function>.*?))?(?:\s+(?P<marker>\*\*?))?\s*$"
)
# AutoGraph's "in user code:" ("in converted code:" in TF 2.0-2.1) lines of TF 2.0-2.4:
# `/p/x.py:12 f  *`, `<__array_function__ internals>:6 prod`; an excerpt may cut the last one
# after its line number.
AUTOGRAPH_OLD_FRAME = re.compile(
    r"^(?P<indent>[ \t]*)(?P<path>\S[^\n]*?\.py|<[^>\n]+>):(?P<line>\d+)"
    r"(?: (?P<function>[\w.<>]+))?(?:\s+(?P<marker>\*\*?))?\s*$"
)
# IPython/Jupyter: `File ~/p/x.py:12, in f(x)`, `File ~/p/x.py:73` (module level, IPython 8
# names no function there) and `Cell In[3], line 5`.
IPYTHON_FRAME = re.compile(
    r"^(?P<indent>[ \t]*)File (?P<path>\S.*?):(?P<line>\d+)(?:, in (?P<function>\w+).*|\s*)$"
)
IPYTHON_CELL = re.compile(r"^(?P<indent>[ \t]*)Cell (?P<path>In ?\[\d*\]), line (?P<line>\d+)")
# IPython 7 (Colab for years): `<ipython-input-3-5f1c0a9e2b7d> in f(x)`, `/p/x.py in f(x)`,
# `<ipython-input-…> in <cell line: 0>()`; the line number is on the `---> 17` arrow below it.
# What follows the name is not read: flattened pastes run the context lines on after it.
IPYTHON7_FRAME = re.compile(
    r"^(?P<indent>[ \t]*)(?P<path><ipython-input-\d+-[0-9a-f]+>|\S[^\n]*?\.pyx?|<[\w -]+>)"
    r" in (?P<function><[\w :-]*>|[\w.<>]+)(?:[\s(].*)?$"
)
_CELL = re.compile(
    r"^(?:Cell )?In ?\[(?P<count>\d*)\]$"  # IPython 8+: `Cell In[5]`
    r"|^<ipython-input-(?P<input>\d+)-[0-9a-f]+>$"  # IPython 7
    r"|[\\/]ipykernel_\d+[\\/]\d+\.py$"  # ipykernel's file for a cell's code
)

_LIBRARY_PATH = re.compile(
    r"[\\/](?:site|dist)-packages[\\/]"  # installed packages (venvs too)
    r"|__autograph_generated_file"  # AutoGraph's converted copies of functions
    r"|^<frozen "  # frozen stdlib modules
    r"|^<__array_function__ internals>"  # NumPy < 1.25's dispatch wrappers
    r"|[\\/]lib[\\/]python\d(?:\.\d+)?[\\/]"  # POSIX stdlib
    r"|[\\/]tf_insight[\\/]session[\\/]debuggee[\\/]"  # our hooks in a traced script
    r"|[\\/](?:python\d+|anaconda\d*|miniconda\d*|envs[\\/][^\\/]+)[\\/]lib[\\/]",  # Windows
    re.IGNORECASE,
)


def is_library_path(path: str) -> bool:
    """True for frames in installed packages, the standard library, generated code, or the
    hooks a guided session wraps around TensorFlow's and Keras's functions."""
    return _LIBRARY_PATH.search(path) is not None


# TensorFlow's and Keras's own code, and AutoGraph's converted copies of functions
_TENSORFLOW_PATH = re.compile(
    r"[\\/](?:tensorflow|keras|tf_keras|tensorflow_core)[\\/]|__autograph_generated_file",
    re.IGNORECASE)
_TENSORFLOW_TYPE = re.compile(r"^(?:tensorflow|keras|tf_keras)\.")


def is_plain_python(incident: Incident) -> bool:
    """An exception whose traceback shows no TensorFlow or Keras at all: no frame of theirs,
    no AutoGraph or Keras wrapper text, not one of their exception types."""
    return (incident.kind is IncidentKind.EXCEPTION and bool(incident.frames)
            and not incident.wrappers and incident.layer is None
            and not _TENSORFLOW_TYPE.match(incident.qualified_type)
            and all(frame.origin is FrameOrigin.TRACEBACK
                    and _TENSORFLOW_PATH.search(frame.path) is None for frame in incident.frames))


def cell_of(path: str) -> str | None:
    """The notebook cell a frame's path names (`In[5]`; the ipykernel file when its number
    is unknown), or None for a file."""
    found = _CELL.search(path)
    if found is None:
        return None
    count = found["count"] if found["count"] is not None else found["input"]
    return f"In[{count}]" if count else path


def strip_ipython_call(function: str) -> str:
    """IPython prints `in f(x, y)`; keep the name only."""
    return function.split("(", 1)[0].strip()
