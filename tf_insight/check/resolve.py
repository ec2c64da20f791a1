"""Find where a name is defined when the import map can't tell: a decorator or base class
imported from another workspace module or an installed package.

jedi does the work, pointed at the `sys.path` of the interpreter the user's code runs with
(`python` setting), so a decorator defined in site-packages is seen. Answers are cached per file
content and position; jedi is only asked for names the cheap ast import map leaves unresolved.

jedi runs in this process and only *reads* code: it is never allowed to import a module that is
not imported here already. jedi imports compiled extensions to inspect them, and importing
`pkg.ext` also runs `pkg/__init__.py`, so an extension in a cloned workspace (or TensorFlow's,
which would import TensorFlow into the language server) would run its code in our process.
A name defined only in a compiled module stays unresolved.
"""

from __future__ import annotations

import logging
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Definition:
    path: str
    line: int
    kind: str  # jedi's type: "function", "class", "module", "statement", ...
    full_name: str


def is_current_interpreter(python: str | None) -> bool:
    """Whether `python` is the interpreter running us. Compared by environment, not by
    resolved executable: every venv's python is a symlink to the same base interpreter."""
    if python is None:
        return True
    return Path(python).absolute().parent.parent == Path(sys.prefix).absolute()


def read_only_environment() -> Any:
    """A jedi environment for this interpreter in which jedi cannot import anything new."""
    from jedi.api.environment import InterpreterEnvironment
    from jedi.inference.compiled.subprocess import InferenceStateSameProcess, functions

    class ReadOnlyProcess(InferenceStateSameProcess):  # type: ignore[misc]
        def load_module(self, dotted_name: str, **kwargs: Any) -> Any:
            if dotted_name not in sys.modules:
                return None  # importing it would run its code (and its packages') here
            return functions.load_module(self._inference_state_weakref(),
                                         dotted_name=dotted_name, **kwargs)

    class ReadOnlyEnvironment(InterpreterEnvironment):  # type: ignore[misc]
        def get_inference_state_subprocess(self, inference_state: Any) -> ReadOnlyProcess:
            return ReadOnlyProcess(inference_state)

    return ReadOnlyEnvironment()


class Resolver:
    def __init__(self, root: str | None = None,
                 sys_path: Callable[[], list[str]] | None = None) -> None:
        """`sys_path`: where the user's interpreter imports from (asked on first need)."""
        self.root = root
        self._sys_path = sys_path
        self._project: Any = None
        self._environment: Any = None
        self._project_failed = False
        self._cache: dict[tuple[str, str, str], Definition | None] = {}
        self._lock = threading.Lock()

    def _jedi_project(self) -> Any:
        if self._project is None and not self._project_failed:
            try:
                import jedi

                self._project = jedi.Project(
                    self.root or Path.cwd(),
                    sys_path=self._sys_path() if self._sys_path is not None else None,
                    load_unsafe_extensions=False,
                )
                self._environment = read_only_environment()
            except Exception as error:  # a broken interpreter path must not stop analysis
                log.warning("jedi project unavailable (%s): cross-module names unresolved", error)
                self._project_failed = True
        return self._project

    def definition(self, importer: str, statement: str, name: str) -> Definition | None:
        """Where `name`, bound by the import `statement` in the file `importer`, is defined.

        jedi is asked about a two-line script (the import, then the name) placed at the
        importer's path, so relative imports resolve and the importer itself is not parsed.
        """
        key = (importer if statement.startswith("from .") else "", statement, name)
        with self._lock:
            if key not in self._cache:
                self._cache[key] = self._goto(importer, f"{statement}\n{name}\n", name)
            return self._cache[key]

    def _goto(self, importer: str, script: str, name: str) -> Definition | None:
        if self._jedi_project() is None:
            return None
        try:
            import jedi

            at = (2, max(len(name) - 1, 0))
            source = jedi.Script(script, path=importer, project=self._project,
                                 environment=self._environment)
            names = source.goto(*at, follow_imports=True)
            if names and all(n.type == "statement" for n in names):
                names = source.infer(*at)  # `alias = decorator`: what the value is
        except Exception as error:  # jedi can fail on odd code; analysis goes on without it
            log.debug("jedi goto failed for %r from %s: %s", script, importer, error)
            return None
        for found in names:
            if found.module_path is not None and found.line is not None:
                return Definition(str(found.module_path), found.line, found.type,
                                  found.full_name or "")
        return None
