"""Find where a name is defined when the import map can't tell: a decorator or base class
imported from another workspace module or an installed package.

jedi does the work, pointed at the environment the user's code runs in (`python` setting), so a
decorator defined in site-packages is seen. Answers are cached per file content and position;
jedi is only asked for names the cheap ast import map leaves unresolved.
"""

from __future__ import annotations

import hashlib
import logging
import threading
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


class Resolver:
    def __init__(self, root: str | None = None, python: str | None = None) -> None:
        self.root = root
        self.python = python
        self._project: Any = None
        self._project_failed = False
        self._cache: dict[tuple[str, int, int], Definition | None] = {}
        self._last_script: tuple[str, Any] | None = None
        self._lock = threading.Lock()

    def _jedi_project(self) -> Any:
        if self._project is None and not self._project_failed:
            try:
                import jedi

                self._project = jedi.Project(
                    self.root or Path.cwd(), environment_path=self.python
                )
            except Exception as error:  # a broken interpreter path must not stop analysis
                log.warning("jedi project unavailable (%s): cross-module names unresolved", error)
                self._project_failed = True
        return self._project

    def definition(self, path: str, text: str, line: int, column: int) -> Definition | None:
        """Where the name at `line` (1-based), `column` (0-based) of this text is defined."""
        key = (hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest(),
               line, column)
        with self._lock:
            if key in self._cache:
                return self._cache[key]
            found = self._goto(key[0], path, text, line, column)
            self._cache[key] = found
            return found

    def _script(self, digest: str, path: str, text: str) -> Any:
        """One jedi Script per file content: it parses the file once for all its names."""
        if self._last_script is None or self._last_script[0] != digest:
            import jedi

            self._last_script = (digest, jedi.Script(text, path=path, project=self._project))
        return self._last_script[1]

    def _goto(self, digest: str, path: str, text: str, line: int, column: int) -> Definition | None:
        if self._jedi_project() is None:
            return None
        try:
            names = self._script(digest, path, text).goto(line, column, follow_imports=True)
        except Exception as error:  # jedi can fail on odd code; analysis goes on without it
            log.debug("jedi goto failed at %s:%s:%s: %s", path, line, column, error)
            return None
        for name in names:
            if name.module_path is not None and name.line is not None:
                return Definition(str(name.module_path), name.line, name.type, name.full_name or "")
        return None
