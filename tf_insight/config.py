"""Settings: `[tool.tf-insight]` in pyproject.toml, overridden by the CLI or the editor.

Keys: `select`, `ignore` (rule codes or prefixes such as `TFI01`), `keras` (`auto`, `3`, `2`),
`python` (the interpreter the user's code runs with; jedi resolves names in its environment),
`exclude` (glob patterns of paths to skip).
"""

from __future__ import annotations

import fnmatch
import sys
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib  # type: ignore[import-not-found, unused-ignore]

KERAS_SETTINGS = ("auto", "3", "2")
DEFAULT_EXCLUDE = (
    ".git", ".hg", ".venv", "venv", ".tox", "node_modules", "__pycache__", "build", "dist",
    ".mypy_cache", ".ruff_cache", ".pytest_cache", "site-packages",
)


class ConfigError(ValueError):
    """A setting has the wrong type or value; the message says which and what is allowed."""


@dataclass(frozen=True)
class Config:
    select: tuple[str, ...] = ("TFI",)
    ignore: tuple[str, ...] = ()
    keras: str = "auto"
    python: str | None = None
    exclude: tuple[str, ...] = ()

    def enabled(self, code: str) -> bool:
        selected = max((len(p) for p in self.select if code.startswith(p)), default=-1)
        ignored = max((len(p) for p in self.ignore if code.startswith(p)), default=-1)
        return selected > ignored  # the more specific prefix wins, as in ruff

    def excluded(self, path: Path) -> bool:
        parts = path.parts
        if any(part in DEFAULT_EXCLUDE for part in parts):
            return True
        text = path.as_posix()
        return any(
            fnmatch.fnmatch(text, pattern) or fnmatch.fnmatch(path.name, pattern)
            or any(fnmatch.fnmatch(part, pattern) for part in parts)
            for pattern in self.exclude
        )

    def merged(self, **overrides: Any) -> Config:
        """A copy with the given settings replaced (None means 'keep'), validated."""
        values = {f.name: getattr(self, f.name) for f in fields(self)}
        values.update({k: v for k, v in overrides.items() if v is not None})
        return from_mapping(values)


def from_mapping(values: dict[str, Any]) -> Config:
    """Validate raw settings (from TOML, JSON or the command line) into a Config."""
    known = {f.name for f in fields(Config)}
    unknown = sorted(set(values) - known)
    if unknown:
        raise ConfigError(f"unknown setting(s): {', '.join(unknown)}; known: {', '.join(sorted(known))}")
    result: dict[str, Any] = {}
    for key in ("select", "ignore", "exclude"):
        if key in values:
            raw = values[key]
            if isinstance(raw, str):
                raw = [part.strip() for part in raw.split(",") if part.strip()]
            if not isinstance(raw, list | tuple) or not all(isinstance(v, str) for v in raw):
                raise ConfigError(f"`{key}` must be a list of strings, got {raw!r}")
            result[key] = tuple(v.upper() if key != "exclude" else v for v in raw)
    if "keras" in values:
        keras = str(values["keras"])
        if keras not in KERAS_SETTINGS:
            raise ConfigError(f"`keras` must be one of {', '.join(KERAS_SETTINGS)}, got {keras!r}")
        result["keras"] = keras
    if "python" in values and values["python"] is not None:
        if not isinstance(values["python"], str) or not values["python"]:
            raise ConfigError(f"`python` must be a path to an interpreter, got {values['python']!r}")
        result["python"] = values["python"]
    return Config(**result)


def find_pyproject(start: Path) -> Path | None:
    start = start.resolve()
    for folder in [start, *start.parents] if start.is_dir() else start.parents:
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


def load(start: Path) -> Config:
    """The `[tool.tf-insight]` table of the nearest pyproject.toml, or the defaults."""
    pyproject = find_pyproject(start)
    if pyproject is None:
        return Config()
    try:
        data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise ConfigError(f"{pyproject}: cannot read [tool.tf-insight]: {error}") from error
    table = data.get("tool", {}).get("tf-insight", {})
    if not isinstance(table, dict):
        raise ConfigError(f"{pyproject}: [tool.tf-insight] must be a table")
    try:
        return from_mapping(table)
    except ConfigError as error:
        raise ConfigError(f"{pyproject}: {error}") from error
