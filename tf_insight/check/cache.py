"""The on-disk cache: facts about a project's files kept between runs, in the user's cache
folder (`$XDG_CACHE_HOME/tf-insight`, else `~/.cache/tf-insight`), one JSON file per project
and kind of fact.

Why there and not in the project (as ruff's `.ruff_cache`): it works for folders the user
cannot or should not write to (an installed environment, a shared checkout, a read-only
corpus), it never shows in the project's `git status`, and a cloned repository cannot ship a
cache of its own (JSON, not pickle, all the same: a bad file is only a cache miss). Each entry
is keyed by its file's path, size and modification time (in nanoseconds), as ruff keys its
cache: a changed file is read again, and so is every file once the code that reads them
changed (`code_version`). A cache that cannot be read or written makes the check slower, never
different.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from pathlib import Path
from typing import Any

from tf_insight.files import read_regular, write_atomically

# entries: path relative to the project → [size, modification time, the fact]
Entries = dict[str, list[Any]]
MAX_CACHE_BYTES = 200_000_000


def code_version(*sources: str) -> str:
    """The version of the facts the code in `sources` (module files) makes: a digest of that
    code, so that no change to it (a new Keras 2 idiom) can leave old facts in the cache."""
    digest = hashlib.sha256()
    for source in sources:
        digest.update(Path(source).read_bytes())
    return digest.hexdigest()[:16]


def folder() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "tf-insight"


class FileFacts:
    """One kind of fact (`kind`, with the `version` of the code that makes it) about the files
    of the project at `root`."""

    def __init__(self, kind: str, version: str, root: Path) -> None:
        self.version = version
        self.root = str(root)
        digest = hashlib.sha256(self.root.encode("utf-8", "surrogateescape")).hexdigest()[:20]
        self.path = folder() / kind / f"{digest}.json"

    def load(self) -> Entries:
        """The entries kept, or none when there is no cache (or it is of another version,
        another project, or unreadable)."""
        try:
            data = json.loads(read_regular(self.path, MAX_CACHE_BYTES))
        except (OSError, ValueError, RecursionError):
            return {}
        if (not isinstance(data, dict) or data.get("version") != self.version
                or data.get("root") != self.root or not isinstance(data.get("files"), dict)):
            return {}
        return {key: value for key, value in data["files"].items()
                if isinstance(value, list) and len(value) == 3}

    def save(self, entries: Entries) -> None:
        text = json.dumps({"version": self.version, "root": self.root, "files": entries},
                          separators=(",", ":"))
        with contextlib.suppress(OSError):
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            write_atomically(self.path, text.encode("utf-8", "surrogateescape"))


def stamp(stat: os.stat_result) -> tuple[int, int]:
    """What says a file changed: its size and modification time."""
    return stat.st_size, stat.st_mtime_ns
