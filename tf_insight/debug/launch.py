"""How a program is run for debugging: `debug_main.py` in the user's interpreter, either
listening for a DAP client itself (`command_line`, for `tf-insight debug`) or as the program of
a debugpy `launch` request (`launch_arguments`, for an editor that runs debugpy's adapter)."""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from typing import Any

from tf_insight import isolation
from tf_insight.session.debuggee.debug_main import library_rules
from tf_insight.session.debuggee.graph_lines import generated_files
from tf_insight.session.probes import DEBUGGEE_DIR

DEBUG_MAIN = DEBUGGEE_DIR / "debug_main.py"
ADAPTER = DEBUGGEE_DIR / "adapter.py"
EDITOR = "--editor"  # adapter.py's mode for an editor's session (it runs outside this package)


def _program_words(target: str, args: Sequence[str], *, module: bool, eager: bool) -> list[str]:
    """debug_main.py's own arguments: the mode, then the program as `python` takes it."""
    return [*(["--eager"] if eager else []), *(["-m", target] if module else [target]), *args]


def command_line(python: str, target: str, args: Sequence[str] = (), *, module: bool = False,
                 eager: bool = False, listen: str | None = None,
                 wait_for_client: bool = False) -> list[str]:
    """`python debug_main.py [--listen ADDRESS [--wait-for-client]] [--eager] TARGET ARGS`."""
    options = [*(["--listen", listen] if listen else []),
               *(["--wait-for-client"] if wait_for_client else [])]
    return [python, str(DEBUG_MAIN), *options,
            *_program_words(target, args, module=module, eager=eager)]


def launch_arguments(python: str, target: str, args: Sequence[str] = (), *, module: bool = False,
                     eager: bool = False, cwd: str | None = None,
                     env: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The arguments of a debugpy `launch` request that runs the program under debug_main.py:
    only the user's code is "my code" (no step into TF, debug_main or AutoGraph's
    scaffolding), breakpoints stop at trace time (and on every call with `eager`)."""
    arguments: dict[str, Any] = {
        "request": "launch",
        "python": [python],
        "program": str(DEBUG_MAIN),
        "args": _program_words(target, args, module=module, eager=eager),
        "justMyCode": True,
        "rules": [{"path": glob, "include": False}
                  for glob in library_rules(generated_files())],
        "subProcess": False,
        "redirectOutput": True,
        # pydevd's warning that frozen modules may hide breakpoints: not about the user's code
        "env": {"PYDEVD_DISABLE_FILE_VALIDATION": "1", **(env or {})},
    }
    if cwd is not None:
        arguments["cwd"] = cwd
    return arguments


def editor_adapter(python: str = sys.executable) -> dict[str, Any]:
    """How an editor starts the debug adapter for `launch_arguments`: debugpy's, through our
    launcher, which listens for no other client and refuses attach by process id; in a folder
    of ours and in safe path mode, as every Python process of ours (`tf_insight.isolation`).
    The environment is what to add to the editor's."""
    return {"command": python, "args": [str(ADAPTER), EDITOR],
            "cwd": isolation.private_dir(),
            "env": isolation.with_bundled_debugpy({"PYTHONSAFEPATH": "1"})}
