"""The switch of the debugger's tracer: off once the run repeats itself, back on for what can
still be new.

A logpoint needs the debugger's tracer, which slows every Python call of the run; a hook costs
one Python call. So once `QUIET_CALLS` hooked calls in a row (tf.function or layer calls) have
recorded nothing new, the tracer goes off, in each thread at its next hook call; the hooks
switch it back on around what can still be new (a trace of a function that runs the user's
Python, until one of its traces shows nothing new; a layer call at a call site not seen
enough). AutoGraph's transpiler always runs untraced.

Per thread we keep our own record (`sys.gettrace()` says nothing under `sys.monitoring`):
`off`, whether we switched its tracer off; `traced`, how many `traced` calls it is inside.
Standard library only.
"""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Callable
from typing import Any

from .messages import TracerOffEvent

QUIET_CALLS = 3


class TracerSwitch:
    """One per session. `trace_to_end`: never switch off."""

    def __init__(self, send: Callable[[TracerOffEvent], None], trace_to_end: bool = False
                 ) -> None:
        self._send = send
        self.trace_to_end = trace_to_end
        self.off = False  # the run repeats itself: threads switch off at their next hook
        self._quiet = 0  # hooked calls in a row that recorded nothing new
        self._local = threading.local()

    def untraced(self) -> bool:
        """Whether we switched this thread's tracer off."""
        return bool(getattr(self._local, "off", False))

    def after_call(self, recorded_before: int, recorded: int) -> None:
        """A hooked call returned (`recorded`: steps and trace records so far): count it as
        quiet if it recorded nothing, and switch the tracer off once the run repeats itself
        (in this thread now; in others at their next hook)."""
        if self.trace_to_end:
            return
        self._quiet = 0 if recorded != recorded_before else self._quiet + 1
        if self._quiet >= QUIET_CALLS and not self.off:
            self.off = True
            self._send({"kind": "tracer_off", "after_records": recorded, "tracer": tracer_kind()})
        if self.off and not self.untraced() and not getattr(self._local, "traced", 0):
            self._switch(False)

    def traced(self, function: Callable[..., Any], args: tuple[Any, ...],
               kwargs: dict[str, Any]) -> Any:
        """Call `function` with the tracer on in this thread (switched back off after, if it
        was off before): a trace runs the user's Python code, the probes' code, for the
        first time."""
        switch = self.off and self.untraced()
        self._local.traced = getattr(self._local, "traced", 0) + 1
        if switch:
            self._switch(True)
        try:
            return function(*args, **kwargs)
        finally:
            self._local.traced -= 1
            if switch:
                self._switch(False)

    def untraced_call(self, function: Callable[..., Any], args: tuple[Any, ...],
                      kwargs: dict[str, Any]) -> Any:
        """Call `function` with this thread's tracer off (code in which no probe is and no
        code of the user's runs)."""
        if self.trace_to_end or self.untraced():
            return function(*args, **kwargs)
        self._switch(False)
        try:
            return function(*args, **kwargs)
        finally:
            self._switch(True)

    def _switch(self, on: bool) -> None:
        """debugpy's own switch: `sys.settrace` in this thread, or `sys.monitoring` (3.12+)."""
        self._local.off = not on
        debugpy = sys.modules.get("debugpy")
        with contextlib.suppress(Exception):  # no debugger: nothing to switch
            debugpy.trace_this_thread(on)  # type: ignore[union-attr]


def tracer_kind() -> str:
    """How debugpy traces this process: `sys.monitoring` (Python 3.12+), else `sys.settrace`."""
    monitoring = getattr(sys, "monitoring", None)
    if monitoring is not None and monitoring.get_tool(monitoring.DEBUGGER_ID) is not None:
        return "sys.monitoring"
    return "sys.settrace"
