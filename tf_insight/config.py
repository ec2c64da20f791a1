"""Settings: the user's own config file, then `[tool.tf-insight]` in the project's
pyproject.toml, then the command line or the editor, each overriding the one before.

The project's settings are those of the pyproject.toml at the project's root (the workspace
folder, or the nearest folder with a root marker: `check.project.project_root`), never one
further up: a folder above the project (a planted `/tmp/pyproject.toml`) must not silence the
checks or choose a program to run. A pyproject.toml that belongs to another user is not read
either (as git refuses a repository of "dubious ownership"): `Config.ignored_settings` says so.

Keys: `select`, `ignore` (rule codes or prefixes such as `TFI01`, or `ALL`), `extend-select`
and `extend-ignore` (added to `select` and `ignore`), `per-file-ignores` (a table: glob pattern
→ codes ignored in the files it matches, relative to the project), `keras` (`auto`, `3`, `2`),
`python` (the interpreter the user's code runs with; jedi resolves names in its environment),
`exclude` (names or glob patterns of paths that are not part of the project; it replaces
`DEFAULT_EXCLUDE`), `extend-exclude` (added to `exclude`), `respect-gitignore` (false: the
ignore files do not exclude anything; see `check.discovery`), `max-file-size` (bytes, or a
number with KB/MB: larger files, or notebooks with more code, are not read, and a TFI900 says
so; default 5 MB). A selector that names no rule is an error, with the nearest that does (`check_selectors`).

`python` names a program that TF Insight runs, so a cloned repository must not choose it: the
project's `python` is used only when the caller trusts the workspace (the editor says so);
otherwise it is kept aside in `Config.ignored_python` for the caller to mention, and the
interpreter comes from the user's config file (`$XDG_CONFIG_HOME/tf-insight/config.toml`, the
same keys at its top level), `--python` or the editor's own setting.
"""

from __future__ import annotations

import difflib
import fnmatch
import os
import re
import sys
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from tf_insight.files import MAX_FILE_BYTES, read_regular

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib  # type: ignore[import-not-found, unused-ignore]

KERAS_SETTINGS = ("auto", "3", "2")
MAX_SETTINGS_BYTES = 20_000_000  # a pyproject.toml larger than this is not settings
# the keys a user can write, and the Config field each sets
SETTINGS = ("select", "ignore", "extend-select", "extend-ignore", "per-file-ignores", "keras",
            "python", "exclude", "extend-exclude", "respect-gitignore", "max-file-size")
# the settings that add to another instead of having a field of their own
EXTENDS = {"extend-ignore": "ignore", "extend-exclude": "exclude"}
_FIELD = {"extend-select": "extend_select", "per-file-ignores": "per_file_ignores",
          "max-file-size": "max_file_size", "respect-gitignore": "respect_gitignore"}
_SIZE = re.compile(r"\s*(\d+)\s*(|B|KB|MB|GB)\s*", re.I)
_UNITS = {"": 1, "B": 1, "KB": 1_000, "MB": 1_000_000, "GB": 1_000_000_000}
# not part of a project (hidden folders and virtual environments never are: `check.discovery`)
DEFAULT_EXCLUDE = (
    "venv", "node_modules", "__pycache__", "__pypackages__", "build", "dist", "_build",
    "buck-out", "site-packages", "dist-packages",
)


class ConfigError(ValueError):
    """A setting has the wrong type or value; the message says which and what is allowed."""


@dataclass(frozen=True)
class Config:
    select: tuple[str, ...] = ("TFI",)
    ignore: tuple[str, ...] = ()
    extend_select: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    keras: str = "auto"
    python: str | None = None
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE
    respect_gitignore: bool = True
    max_file_size: int = MAX_FILE_BYTES
    # a `python` the project asked for and that was not used (untrusted), and where it was
    ignored_python: str | None = None
    # a settings file that was not read, and why
    ignored_settings: str | None = None

    def enabled(self, code: str, default: bool = True) -> bool:
        """Whether a rule reports: the most specific selecting or ignoring prefix wins, as
        in ruff; an opt-in rule (`default` False) only when selected by its own code or
        `ALL`."""
        chosen = (*self.select, *self.extend_select)
        if not default and not any(p in (code, "ALL") for p in chosen):
            return False
        selected = max((len(p) for p in chosen
                        if code.startswith(p) or p == "ALL"), default=-1)
        ignored = max((len(p) for p in self.ignore if code.startswith(p)), default=-1)
        return selected > ignored  # the more specific prefix wins, as in ruff

    def for_file(self, relative: Path) -> Config:
        """The settings for one file: its `per-file-ignores` added to `ignore`."""
        extra = tuple(code for pattern, codes in self.per_file_ignores
                      if _matches(relative, pattern) for code in codes)
        return replace(self, ignore=(*self.ignore, *extra)) if extra else self

    def merged(self, codes: Collection[str] = (), **overrides: Any) -> Config:
        """A copy with the given settings replaced (None means 'keep'; an `extend-` setting
        adds), validated (`codes`: the rule codes selectors must name, see
        `check_selectors`)."""
        values = {key: getattr(self, _FIELD.get(key, key)) for key in SETTINGS
                  if key not in EXTENDS}
        values["per-file-ignores"] = {pattern: list(codes)
                                      for pattern, codes in self.per_file_ignores}
        values.update({k: v for k, v in overrides.items() if v is not None})
        return replace(from_mapping(values, codes), ignored_python=self.ignored_python,
                       ignored_settings=self.ignored_settings)


def _matches(path: Path, pattern: str) -> bool:
    """A glob against the whole relative path, its name, or any one of its parts."""
    return (fnmatch.fnmatch(path.as_posix(), pattern) or fnmatch.fnmatch(path.name, pattern)
            or any(fnmatch.fnmatch(part, pattern) for part in path.parts))


def from_mapping(values: dict[str, Any], codes: Collection[str] = ()) -> Config:
    """Validate raw settings (from TOML, JSON or the command line) into a Config; with
    `codes`, every rule selector must name some of them (`check_selectors`)."""
    unknown = sorted(set(values) - set(SETTINGS))
    if unknown:
        raise ConfigError(f"unknown setting(s): {', '.join(unknown)}; "
                          f"known: {', '.join(sorted(SETTINGS))}")
    result: dict[str, Any] = {}
    for key in ("select", "ignore", "extend-select", "exclude"):
        if key in values:
            result[_FIELD.get(key, key)] = tuple(
                v.upper() if key != "exclude" else v for v in _strings(key, values[key]))
    for key, extended in EXTENDS.items():
        if key in values:
            base = result.get(extended, getattr(Config, extended))
            result[extended] = (*base, *(v.upper() if extended == "ignore" else v
                                         for v in _strings(key, values[key])))
    ignores = values.get("per-file-ignores") or {}
    if not isinstance(ignores, dict):
        raise ConfigError(f"`per-file-ignores` must be a table of pattern = [codes], "
                          f"got {ignores!r}")
    result["per_file_ignores"] = tuple(
        (str(pattern), tuple(code.upper() for code in _strings(f"per-file-ignores.{pattern}",
                                                               codes)))
        for pattern, codes in ignores.items())
    if "keras" in values:
        keras = str(values["keras"])
        if keras not in KERAS_SETTINGS:
            raise ConfigError(f"`keras` must be one of {', '.join(KERAS_SETTINGS)}, got {keras!r}")
        result["keras"] = keras
    if "python" in values and values["python"] is not None:
        if not isinstance(values["python"], str) or not values["python"]:
            raise ConfigError(f"`python` must be a path to an interpreter, got {values['python']!r}")
        result["python"] = values["python"]
    if "respect-gitignore" in values:
        if not isinstance(values["respect-gitignore"], bool):
            raise ConfigError(f"`respect-gitignore` must be true or false, "
                              f"got {values['respect-gitignore']!r}")
        result["respect_gitignore"] = values["respect-gitignore"]
    if "max-file-size" in values:
        result["max_file_size"] = _size(values["max-file-size"])
    config = Config(**result)
    if codes:
        check_selectors(_selectors(config), codes)
    return config


def check_selectors(places: Iterable[tuple[str, Iterable[str]]], codes: Collection[str]) -> None:
    """Raise a ConfigError for the first rule selector that names none of `codes`, with the
    nearest one that does; `places` are (where it was written, its selectors). A selector is
    `ALL`, a code, or a prefix of one at least as long as its letters (`TFI`, `TFI0`, `TFI01`),
    as in ruff: `TFX999` and `TFI06` select nothing, so they are typos."""
    valid = {"ALL"} | {code[:length] for code in codes
                       for length in range(len(code.rstrip("0123456789")), len(code) + 1)}
    # named as the nearest: a code, a linter's letters, or ALL (the first of equals)
    named = sorted({"ALL", *codes, *(code.rstrip("0123456789") for code in codes)})
    for where, selectors in places:
        for selector in selectors:
            if selector not in valid:
                nearest = max(named, key=lambda candidate: difflib.SequenceMatcher(
                    None, selector, candidate).ratio())
                raise ConfigError(f"unknown rule code {selector!r} in {where}; the nearest is "
                                  f"{nearest!r} (`tf-insight rules` lists them)")


def _selectors(config: Config) -> list[tuple[str, tuple[str, ...]]]:
    return [("`select`", config.select), ("`ignore`", config.ignore),
            ("`extend-select`", config.extend_select),
            *((f"`per-file-ignores` ({pattern!r})", chosen)
              for pattern, chosen in config.per_file_ignores)]


def _size(raw: Any) -> int:
    """A size in bytes, from a number or text such as `8MB`."""
    match = _SIZE.fullmatch(raw) if isinstance(raw, str) else None
    if isinstance(raw, int) and not isinstance(raw, bool) and raw > 0:
        return raw
    if match and int(match[1]) > 0:
        return int(match[1]) * _UNITS[match[2].upper()]
    raise ConfigError(f"`max-file-size` must be a positive number of bytes (or with KB or MB, "
                      f"e.g. \"8MB\"), got {raw!r}")


def _strings(key: str, raw: Any) -> list[str]:
    if isinstance(raw, str):
        raw = [part.strip() for part in raw.split(",") if part.strip()]
    if not isinstance(raw, list | tuple) or not all(isinstance(v, str) for v in raw):
        raise ConfigError(f"`{key}` must be a list of strings, got {raw!r}")
    return list(raw)


def owned_by_user(path: Path) -> bool:
    """Whether a file belongs to the user running us (or to root, as system files do): only
    such a file may set what we check and run. Where there are no owners, every file does."""
    getuid = getattr(os, "getuid", None)
    if getuid is None:
        return True
    try:
        owner = path.stat().st_uid
    except OSError:
        return False
    return owner in (getuid(), 0)


def _is(path: Path, test: Callable[[Path], bool]) -> bool:
    """`path.is_file()` and friends, False for a path that cannot even be looked at."""
    try:
        return test(path)
    except OSError:
        return False


def user_config_path() -> Path:
    """The user's own settings file: `$XDG_CONFIG_HOME/tf-insight/config.toml`."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "tf-insight" / "config.toml"


def load(root: Path, trust_workspace: bool = False, codes: Collection[str] = (),
         settings_file: Path | None = None) -> Config:
    """The user's config file with the `[tool.tf-insight]` table of the project's own
    pyproject.toml (the one in `root`, the project's root) on top (see the module docstring
    for `python` and `trust_workspace`); `codes`: the rule codes selectors must name. A
    `settings_file` (`--config`) given by the user replaces both."""
    if settings_file is not None:
        return _settings_file(settings_file, codes)
    user = _settings_file(user_config_path(), codes)
    pyproject = root / "pyproject.toml"
    if not _is(pyproject, Path.is_file):
        above = next((folder / "pyproject.toml" for folder in root.parents
                      if _is(folder / "pyproject.toml", Path.is_file)), None)
        if above is not None and not owned_by_user(above):  # say why it did not count
            return replace(user, ignored_settings=f"{above}: it belongs to another user")
        return user
    if not owned_by_user(pyproject):
        return replace(user, ignored_settings=f"{pyproject}: it belongs to another user")
    table = _read_table(pyproject, ("tool", "tf-insight"))
    project_python = table.pop("python", None)
    try:
        project = user.merged(codes, **table)
    except ConfigError as error:
        raise ConfigError(f"{pyproject}: {error}") from error
    if project_python is None:
        return project
    if trust_workspace:
        return project.merged(python=interpreter_path(project_python, pyproject.parent))
    return replace(project, ignored_python=f"{project_python!r} from {pyproject}")


def interpreter_path(value: Any, base: Path) -> Any:
    """An interpreter setting as a command to run: a path with a folder in it is made absolute
    against `base` (where it was written: the project, the config file, the current folder),
    since we run our processes in a folder of our own; a bare name is looked up on PATH."""
    if isinstance(value, str) and (os.sep in value or "/" in value):
        return str(base / os.path.expanduser(value))
    return value


def _settings_file(path: Path, codes: Collection[str]) -> Config:
    """The settings of a file the user chose (their own config file, `--config`): the
    `[tool.tf-insight]` table of a pyproject.toml, the top level of any other; its `python`
    is theirs to choose. No file, no settings."""
    if not _is(path, Path.is_file):
        return Config()
    table = _read_table(path, ("tool", "tf-insight") if path.name == "pyproject.toml" else ())
    if "python" in table:
        table["python"] = interpreter_path(table["python"], path.parent)
    try:
        return from_mapping(table, codes)
    except ConfigError as error:
        raise ConfigError(f"{path}: {error}") from error


def parse_settings(text: str) -> dict[str, Any]:
    """Settings written as TOML on the command line (`select = ["TFI006"]`)."""
    try:
        return dict(tomllib.loads(text))
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"not TOML settings: {error}") from error


def _read_table(path: Path, keys: tuple[str, ...]) -> dict[str, Any]:
    try:
        data: Any = tomllib.loads(read_regular(path, MAX_SETTINGS_BYTES).decode("utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise ConfigError(f"{path}: cannot read the settings: {error}") from error
    except RecursionError:
        raise ConfigError(f"{path}: cannot read the settings: it is nested too deeply") from None
    for key in keys:
        data = data.get(key, {}) if isinstance(data, dict) else None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: [{'.'.join(keys)}] must be a table")
    return dict(data)
