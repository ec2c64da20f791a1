"""Reading and writing the user's files safely: what a repository contains must not hang us,
feed us a device or leak a secret, and a write must never leave a file half-written.

Reading (`read_regular`): only regular files, after following links, and none from the
kernel's own file systems (`/proc/self/environ` is "regular", of size 0, and holds the
environment), opened without blocking (a FIFO named `train.py` would wait for a writer
forever), and no more than a size cap: past it, the file is skipped and the caller says so.

Writing (`write_atomically`): a temporary file in the same folder, with the original's mode,
flushed to disk, then renamed over the original: a crash, a full disk or an encoding error
leaves the file as it was.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path

MAX_FILE_BYTES = 5_000_000  # the default cap; `max-file-size` in the settings changes it
KERNEL_FILE_SYSTEMS = ("/proc", "/sys", "/dev")


class SkippedFile(OSError):
    """A file that is not read, and why (for the user: a TFI900 finding says it)."""

    def __init__(self, path: str | os.PathLike[str], reason: str) -> None:
        super().__init__(reason)
        self.filename = os.fspath(path)
        self.strerror = reason


def read_regular(path: str | os.PathLike[str], limit: int = MAX_FILE_BYTES,
                 head: bool = False, real_folders: dict[str, str] | None = None) -> bytes:
    """The bytes of a regular file of at most `limit` bytes (with `head`, its first `limit`
    bytes, however large it is); raises `SkippedFile` (saying why) for anything else, and
    OSError for a file that cannot be opened. `real_folders`: the folders resolved so far in
    one batch of reads (a scan of a project: most files share their folders)."""
    resolved = _resolved(os.fspath(path), real_folders)
    if any(resolved == root or resolved.startswith(root + os.sep)
           for root in KERNEL_FILE_SYSTEMS):
        raise SkippedFile(path, f"not a source file (it leads to {resolved})")
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    descriptor = os.open(path, flags)
    with os.fdopen(descriptor, "rb") as file:
        mode = os.fstat(descriptor).st_mode
        if not stat.S_ISREG(mode):
            raise SkippedFile(path, f"not a regular file (a {_kind(mode)})")
        data = file.read(limit + 1)  # the size on disk can lie (a file still growing)
    if len(data) > limit and head:
        return data[:limit]
    if len(data) > limit:
        raise SkippedFile(path, f"larger than {limit:,} bytes (`max-file-size` in the "
                                "settings raises the limit)")
    return data


def _resolved(path: str, real_folders: dict[str, str] | None) -> str:
    """`os.path.realpath(path)`, from the resolved folder when it was resolved in this batch
    (one `lstat` per file rather than one per part of its path)."""
    if real_folders is None or os.path.islink(path):
        return os.path.realpath(path)
    folder, name = os.path.split(os.path.abspath(path))
    real = real_folders.get(folder)
    if real is None:
        real = real_folders[folder] = os.path.realpath(folder)
    return os.path.join(real, name)


def read_text(path: str | os.PathLike[str], limit: int = MAX_FILE_BYTES) -> str:
    """`read_regular`, decoded as UTF-8 with undecodable bytes replaced."""
    return read_regular(path, limit).decode("utf-8", errors="replace")


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "named pipe"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    if stat.S_ISSOCK(mode):
        return "socket"
    return "folder" if stat.S_ISDIR(mode) else "special file"


def write_atomically(path: str | os.PathLike[str], data: bytes) -> None:
    """Replace the file at `path` (the file a link leads to, for a link) with `data` in one
    step; its mode (and, where allowed, its owner) are kept."""
    target = Path(os.path.realpath(path))
    try:
        before: os.stat_result | None = target.stat()
    except FileNotFoundError:
        before = None
    descriptor, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.",
                                             suffix=".tf-insight")
    try:
        with os.fdopen(descriptor, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        if before is not None:
            os.chmod(temporary, stat.S_IMODE(before.st_mode))
            with contextlib.suppress(OSError):  # only the owner's own or root's to keep
                os.chown(temporary, before.st_uid, before.st_gid)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
