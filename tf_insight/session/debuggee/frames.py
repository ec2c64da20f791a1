"""Where code is: the user's or a library's, the user's line behind an AutoGraph-generated
frame, a whole stack, and tracebacks without the debuggee's own frames.

Not `tf_insight.explain.frames.is_library_path`: this runs in the user's interpreter with the
standard library only, and knows that interpreter's real roots. Standard library only.
"""

from __future__ import annotations

import importlib.util
import os
import sysconfig
import types

from .messages import UserFrame

MAX_STACK = 200
TF_DATA_DIR = os.path.join("tensorflow", "python", "data", "")
# This package's folder: the debuggee's own frames (hooks, probe) are never shown.
OURS = os.path.dirname(os.path.abspath(__file__)) + os.sep


def is_ours(path: str) -> bool:
    return path.startswith(OURS)


def is_generated(path: str) -> bool:
    """AutoGraph's rewrite of a function (its lines map back to the function's source)."""
    return os.path.basename(path).startswith("__autograph_generated_file")


class Library:
    """The roots of the interpreter's libraries (site-packages, the standard library,
    debugpy, this package), and which paths are under them, cached per path."""

    def __init__(self) -> None:
        roots = {OURS.rstrip(os.sep)}
        paths = sysconfig.get_paths()
        for key in ("purelib", "platlib", "stdlib", "platstdlib"):
            path = paths.get(key)
            if path:
                roots.add(os.path.realpath(path))
                roots.add(os.path.abspath(path))
        debugpy = importlib.util.find_spec("debugpy")  # never count debugpy's frames as user code
        if debugpy is not None and debugpy.submodule_search_locations:
            roots.update(os.path.abspath(path) for path in debugpy.submodule_search_locations)
        self.roots = tuple(sorted(roots))
        # Where tf.data's own function wrappers live (a map function is traced through them).
        self.tf_data_roots = tuple(os.path.join(root, TF_DATA_DIR) for root in self.roots)
        self._known: dict[str, bool] = {}
        self._real: dict[str, str] = {}

    def is_library(self, path: str) -> bool:
        known = self._known.get(path)
        if known is None:
            known = not path or path.startswith("<") or os.path.abspath(path).startswith(
                self.roots)
            self._known[path] = known
        return known

    def real_path(self, path: str) -> str:
        """Symlinks resolved (a venv reached through a link still matches), cached per path."""
        real = self._real.get(path)
        if real is None:
            real = self._real[path] = os.path.realpath(path)
        return real

    def user_frame(self, frame: types.FrameType) -> UserFrame | None:
        """The nearest frame in the user's code; AutoGraph-generated frames map to their
        source."""
        current: types.FrameType | None = frame
        for _ in range(MAX_STACK):
            if current is None:
                return None
            path = current.f_code.co_filename
            if is_generated(path):
                origin = autograph_origin(current)
                if origin is not None and not self.is_library(origin["path"]):
                    return origin
            elif not self.is_library(path):
                return {"path": path, "line": current.f_lineno, "function": current.f_code.co_name}
            current = current.f_back
        return None


def autograph_origin(frame: types.FrameType) -> UserFrame | None:
    """Look up the generated line in the `ag_source_map` of the caller's `converted_f`."""
    key = (frame.f_code.co_filename, frame.f_lineno)
    outer = frame.f_back
    for _ in range(12):  # loop bodies run through AutoGraph's for_stmt/while_stmt helpers
        if outer is None:
            return None
        converted = outer.f_locals.get("converted_f")
        source_map = getattr(converted, "ag_source_map", None)
        if source_map is not None:
            origin = source_map.get(key)
            if origin is not None:
                return {
                    "path": str(origin.loc.filename),
                    "line": int(origin.loc.lineno),
                    "function": str(origin.function_name),
                    "generated": f"{key[0]}:{key[1]}",
                }
        outer = outer.f_back
    return None


def stack(frame: types.FrameType) -> list[str]:
    """The full, unfiltered stack at `frame`, outermost first, as `path:function:line`
    (without the debuggee's own frames)."""
    entries: list[str] = []
    current: types.FrameType | None = frame
    while current is not None and len(entries) < MAX_STACK:
        code = current.f_code
        if not is_ours(code.co_filename):
            entries.append(f"{code.co_filename}:{code.co_name}:{current.f_lineno}")
        current = current.f_back
    return entries[::-1]


def without_hooks(tb: types.TracebackType | None) -> types.TracebackType | None:
    """`tb` without the debuggee's own frames, so that a traceback reads as under plain
    python."""
    entries: list[types.TracebackType] = []
    while tb is not None:
        entries.append(tb)
        tb = tb.tb_next
    rebuilt = None
    for entry in reversed(entries):
        if not is_ours(entry.tb_frame.f_code.co_filename):
            rebuilt = types.TracebackType(rebuilt, entry.tb_frame, entry.tb_lasti,
                                          entry.tb_lineno)
    return rebuilt
