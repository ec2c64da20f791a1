"""How TF Insight starts its own Python processes: nothing in a workspace or in the current
folder can take the place of a module, ours or the standard library's.

A cloned repository is untrusted input. Python puts the current folder first on `sys.path` for
`python -m mod` and `python -c code`, and resolves relative `PYTHONPATH` entries against it, so
a workspace file `tf_insight.py` (or `json.py`) started by us in that folder would run. Every
Python process we start (the language server's worker, the interpreter queried for its
`sys.path`, the probe resolver, the debug adapter) therefore gets

- a current folder of our own: a private directory, empty and readable only by this user;
- `PYTHONSAFEPATH=1` (Python 3.11+: no current folder or script folder on `sys.path` at all);
- `PYTHONPATH` without relative or empty entries (both mean "the current folder"); absolute
  entries are the user's own choice and stay; `PYTHONSTARTUP` and `PYTHONINSPECT` removed.

The user's own script in a guided session is the exception: it runs as the user would run it
(their folder, their environment), and only in a trusted workspace (see SECURITY.md).

The editor extension ships its Python side in a bundle (`TF_INSIGHT_BUNDLE`, set by the
extension for the server): `libs/` (TF Insight, pygls, jedi...) on the server's own `sys.path`
only, never on the path of the user's interpreter, and `debugpy/` (debugpy alone), first on the
path of the processes that need debugpy in the user's interpreter (the debug adapter, the
debuggee, the probe resolver), so that nothing is installed into that interpreter.
Standard library only.
"""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
from collections.abc import Mapping

REMOVED = ("PYTHONSTARTUP", "PYTHONINSPECT")
BUNDLE = "TF_INSIGHT_BUNDLE"
_private: list[str] = []


def private_dir() -> str:
    """An empty folder of ours (mode 0700), made once per process and removed at its exit."""
    if not _private or not os.path.isdir(_private[0]):
        _private[:] = [tempfile.mkdtemp(prefix="tf-insight-")]
        atexit.register(shutil.rmtree, _private[0], True)
    return _private[0]


def python_env(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment for a Python process of ours (see the module docstring)."""
    env = dict(os.environ if base is None else base)
    for name in REMOVED:
        env.pop(name, None)
    env["PYTHONSAFEPATH"] = "1"
    if "PYTHONPATH" in env:
        kept = [entry for entry in env["PYTHONPATH"].split(os.pathsep)
                if entry and os.path.isabs(entry)]
        if kept:
            env["PYTHONPATH"] = os.pathsep.join(kept)
        else:
            del env["PYTHONPATH"]
    return env


def harden_this_process() -> None:
    """For a long-lived process of ours (the language server): drop from `sys.path` what the
    start folder put there (a client may have started us inside a workspace with `python -m`,
    or with a relative `PYTHONPATH`), move to the private folder, and give every child the
    environment of `python_env`."""
    started_in = os.getcwd()
    from_start = {started_in} | {os.path.join(started_in, entry)
                                 for entry in os.environ.get("PYTHONPATH", "").split(os.pathsep)
                                 if entry and not os.path.isabs(entry)}
    sys.path[:] = [entry for entry in sys.path
                   if entry and os.path.normpath(entry) not in map(os.path.normpath, from_start)]
    os.chdir(private_dir())
    hardened = python_env(os.environ)
    os.environ.clear()
    os.environ.update(hardened)


def bundle_folder(name: str) -> str | None:
    """`libs` or `debugpy` of the extension's bundle (module docstring); None without one."""
    bundle = os.environ.get(BUNDLE)
    if not bundle or not os.path.isabs(bundle):
        return None
    folder = os.path.join(bundle, name)
    return folder if os.path.isdir(folder) else None


def with_bundled_debugpy(env: Mapping[str, str]) -> dict[str, str]:
    """`env` with the bundle's debugpy first on `PYTHONPATH` (unchanged without a bundle): the
    version our debugpy tweaks were built with, whatever the user's interpreter has."""
    out = dict(env)
    folder = bundle_folder("debugpy")
    if folder is not None:
        out["PYTHONPATH"] = os.pathsep.join(
            [folder, *(entry for entry in out.get("PYTHONPATH", "").split(os.pathsep) if entry)])
    return out
