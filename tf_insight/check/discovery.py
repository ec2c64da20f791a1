"""Which files under a folder are part of the project, as ruff and pyright decide it.

Below a folder asked for, these are not: folders the settings exclude (`exclude`, whose default
is `config.DEFAULT_EXCLUDE`: `site-packages`, `node_modules`, build outputs…, and
`extend-exclude`), hidden folders, virtual environments whatever their names (a folder with a
`pyvenv.cfg`, or a conda environment's `conda-meta`), and what ignore files list: `.gitignore`
files and `.git/info/exclude` inside a git repository (as git reads them: the nearest file's
last matching pattern wins, `!` re-includes), `.ignore` files anywhere (ripgrep's, over
`.gitignore`). `respect-gitignore = false` (`--no-respect-gitignore`) reads no ignore file.

Exclusions apply below the folder asked for: checking `.venv/lib/…/site-packages/keras` on
purpose works, and a file named on the command line is checked (as ruff does). An ignore file
that belongs to another user is not read (as git refuses such a repository): it could only hide
files from the check.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from operator import attrgetter
from pathlib import Path, PurePath

from tf_insight.config import Config, owned_by_user
from tf_insight.files import read_text

SOURCE_SUFFIXES = (".py", ".pyi", ".ipynb")
# an environment, not project code: a venv (whatever its name) and a conda environment
ENVIRONMENT_MARKERS = ("pyvenv.cfg", "conda-meta")
MAX_IGNORE_FILE_BYTES = 1_000_000  # larger is not an ignore file anyone wrote


def iter_python_files(paths: Iterable[Path], config: Config,
                      unreadable: list[OSError] | None = None) -> Iterator[Path]:
    """The Python files and notebooks under `paths` that are part of the project, in the
    order of a sorted walk (a folder's files, then its subfolders); folders that cannot be
    listed go to `unreadable`."""
    excluder = Excluder(config.exclude)
    for path in paths:
        if _is_dir(path):
            yield from map(Path, walk(path, config, excluder, unreadable))
        elif not excluder.excluded(path) or path.suffix in (".py", ".ipynb"):
            yield path  # a file named explicitly is checked, as ruff does


def walk(start: Path, config: Config, excluder: Excluder | None = None,
         unreadable: list[OSError] | None = None) -> Iterator[str]:
    """`iter_python_files` of one folder, as strings (a `Path` each costs more than the
    walk, for a project of 10,000 files)."""
    excluder = excluder or Excluder(config.exclude)
    # (the folder as the user spelt it, as an absolute path for the ignore files, below start)
    top = os.path.abspath(start)
    ignores = Ignores.above(top) if config.respect_gitignore else None
    stack: list[tuple[str, str, str, Ignores | None]] = [(str(start), top, "", ignores)]
    while stack:
        folder, absolute, relative, ignores = stack.pop()
        try:
            with os.scandir(folder) as listing:
                entries = sorted(listing, key=attrgetter("name"))
        except OSError as error:
            if unreadable is not None:
                unreadable.append(error)
            continue
        names = {entry.name for entry in entries}
        if relative and any(marker in names for marker in ENVIRONMENT_MARKERS):
            continue  # a virtual environment: installed packages, not the project
        if ignores is not None:
            ignores = ignores.entering(absolute, names)
        subfolders = []
        for entry in entries:
            name = entry.name
            path = f"{relative}/{name}" if relative else name
            if _is_dir_entry(entry):
                if (name.startswith(".") or excluder.excluded_name(name, path) or (
                        ignores is not None and ignores.ignored(f"{absolute}/{name}", True))):
                    continue
                if not entry.is_symlink():  # listed, not followed, as os.walk does
                    subfolders.append((entry.path, f"{absolute}/{name}", path, ignores))
            elif name.endswith(SOURCE_SUFFIXES) and not excluder.excluded_name(name, path) and not (
                    ignores is not None and ignores.ignored(f"{absolute}/{name}", False)):
                yield entry.path
        stack.extend(reversed(subfolders))


class Excluder:
    """The `exclude` patterns: a bare name (`build`) excludes every file or folder of that
    name; a glob is matched against the name and against the path below the folder asked
    for (`legacy/*`)."""

    def __init__(self, patterns: Iterable[str]) -> None:
        self.names = {p for p in patterns if not any(c in p for c in "*?[/")}
        self.globs = [re.compile(fnmatch.translate(p)) for p in patterns if p not in self.names]

    def excluded_name(self, name: str, relative: str) -> bool:
        """For one step of a walk: the folders above were looked at on the way down."""
        return name in self.names or (bool(self.globs) and any(
            glob.match(name) or glob.match(relative) for glob in self.globs))

    def excluded(self, path: PurePath) -> bool:
        """For a path named directly: any of its parts."""
        return any(self.excluded_name(part, path.as_posix()) for part in path.parts)


@dataclass(frozen=True)
class IgnoreFile:
    """The patterns of one ignore file, for the paths below its folder."""

    folder: str
    patterns: tuple[tuple[re.Pattern[str], bool, bool], ...]  # (regex, negated, folders only)
    any_pattern: re.Pattern[str]  # the quick test: does some pattern match at all?

    @classmethod
    def read(cls, path: str, folder: str) -> IgnoreFile | None:
        """The ignore file at `path`, its patterns relative to `folder`."""
        try:
            if not owned_by_user(Path(path)):
                return None
            text = read_text(path, MAX_IGNORE_FILE_BYTES)
        except OSError:
            return None
        patterns = tuple(p for p in map(_pattern, text.splitlines()) if p is not None)
        if not patterns:
            return None
        return cls(folder, patterns,
                   re.compile("|".join(f"(?:{regex.pattern})" for regex, _, _ in patterns)))

    def decides(self, path: str, is_dir: bool) -> bool | None:
        """True (ignored), False (re-included by a `!` pattern) or None (no pattern matches)."""
        relative = path[len(self.folder) + 1:]
        if not self.any_pattern.match(relative):
            return None
        for regex, negated, folders_only in reversed(self.patterns):  # the last match wins
            if regex.match(relative) and (is_dir or not folders_only):
                return not negated
        return None


def _pattern(line: str) -> tuple[re.Pattern[str], bool, bool] | None:
    """A gitignore line as (regex on the path relative to the file's folder, negated, folders
    only); None for a blank line or a comment."""
    line = re.sub(r"(?<!\\)\s+$", "", line)
    if not line or line.startswith("#"):
        return None
    negated = line.startswith("!")
    if negated or line.startswith(("\\!", "\\#")):
        line = line[1:]
    folders_only = line.endswith("/")
    line = line.rstrip("/")
    if not line:
        return None
    anchored = "/" in line  # `a/b` and `/a` are relative to the folder; `a` is at any depth
    line = line.lstrip("/")
    regex = _translate(line)
    if not anchored:
        regex = "(?:.*/)?" + regex
    return re.compile(regex + r"\Z"), negated, folders_only


def _translate(glob: str) -> str:
    """gitignore's glob as a regex: `*` and `?` stay within a folder, `**` crosses folders."""
    out, i = [], 0
    while i < len(glob):
        if glob.startswith("**/", i) and (i == 0 or glob[i - 1] == "/"):
            out.append("(?:.*/)?")
            i += 3
        elif glob.startswith("**", i) and i + 2 == len(glob) and (i == 0 or glob[i - 1] == "/"):
            out.append(".*")
            i += 2
        elif glob[i] == "*":
            out.append("[^/]*")
            i += 1
        elif glob[i] == "?":
            out.append("[^/]")
            i += 1
        elif glob[i] == "[" and "]" in glob[i + 2:]:
            end = glob.index("]", i + 2)
            body = glob[i + 1:end]
            if body.startswith("!"):
                body = "^" + body[1:]
            out.append("[" + body.replace("\\", "\\\\") + "]")
            i = end + 1
        elif glob[i] == "\\" and i + 1 < len(glob):
            out.append(re.escape(glob[i + 1]))
            i += 2
        else:
            out.append(re.escape(glob[i]))
            i += 1
    return "".join(out)


@dataclass(frozen=True)
class Ignores:
    """The ignore files that apply in a folder, nearest last: git's (`.git/info/exclude`, then
    the `.gitignore` files from the repository's top down; none outside a repository) and the
    `.ignore` files, which take precedence."""

    git: tuple[IgnoreFile, ...] = ()
    plain: tuple[IgnoreFile, ...] = ()
    in_repository: bool = False

    @classmethod
    def above(cls, folder: str) -> Ignores:
        """The ignore files of the folders above `folder` (an absolute path) that apply below
        it: those of its repository, from the top down; none outside a repository."""
        chain = [os.path.dirname(folder)]
        while os.path.dirname(chain[-1]) != chain[-1] and not _has_git(chain[-1]):
            chain.append(os.path.dirname(chain[-1]))
        ignores = cls()
        if os.path.dirname(folder) != folder and _has_git(chain[-1]):
            for above in reversed(chain):
                ignores = ignores.entering(above, _names(above))
        return ignores

    def entering(self, folder: str, names: set[str]) -> Ignores:
        """The ignore files for below `folder`, given the names it holds."""
        git, in_repository = self.git, self.in_repository
        if ".git" in names:  # a repository's top (a nested one starts afresh, as in git)
            git, in_repository = _excludes(folder), True
        if in_repository and ".gitignore" in names:
            git = _plus(git, IgnoreFile.read(os.path.join(folder, ".gitignore"), folder))
        plain = self.plain
        if ".ignore" in names:
            plain = _plus(plain, IgnoreFile.read(os.path.join(folder, ".ignore"), folder))
        if (git, plain, in_repository) == (self.git, self.plain, self.in_repository):
            return self
        return Ignores(git, plain, in_repository)

    def ignored(self, path: str, is_dir: bool) -> bool:
        for files in (self.plain, self.git):
            for ignore_file in reversed(files):
                decided = ignore_file.decides(path, is_dir)
                if decided is not None:
                    return decided
        return False


def _plus(files: tuple[IgnoreFile, ...], more: IgnoreFile | None) -> tuple[IgnoreFile, ...]:
    return files if more is None else (*files, more)


def _excludes(top: str) -> tuple[IgnoreFile, ...]:
    """A repository's `info/exclude` (in the `.git` folder, or where a `.git` file points)."""
    git = os.path.join(top, ".git")
    if os.path.isfile(git):
        try:
            pointer = read_text(git, 10_000).strip()
        except OSError:
            return ()
        if not pointer.startswith("gitdir:"):
            return ()
        git = os.path.join(top, pointer.removeprefix("gitdir:").strip())
        try:  # a worktree: its info/exclude is the main repository's
            common = read_text(os.path.join(git, "commondir"), 10_000).strip()
            git = os.path.join(git, common)
        except OSError:
            pass
    return _plus((), IgnoreFile.read(os.path.join(git, "info", "exclude"), top))


def _has_git(folder: str) -> bool:
    return os.path.lexists(os.path.join(folder, ".git"))


def _names(folder: str) -> set[str]:
    return {name for name in (".git", ".gitignore", ".ignore")
            if os.path.lexists(os.path.join(folder, name))}


def _is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except OSError:
        return False


def _is_dir_entry(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False
