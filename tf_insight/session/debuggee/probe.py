"""The probe session: what the debuggee records for one run, and the logpoints' entry.

Each logpoint's message is `{__import__('_tf_insight_probe').hit('<probe name>')}`: `hit`
finds the probed frame on the stack (the logpoint is evaluated from the tracer, above that
frame), annotates it (`annotations.Annotator`) and returns '' so that the debugger sends no
output event. Hooks (`hooks.Hooks`) count where every call counts; the tracer switch
(`tracer.TracerSwitch`) keeps the debugger's tracer off once the run repeats itself; events
go to the runner through the annotation pipe (`pipe.Pipe`).

The bootstrap opens one `ProbeSession` per run (`open_session`); it lives as long as the
process. This package must stay standalone (the standard library only; TensorFlow only via
`sys.modules`) and must never raise into the user's script.
"""

from __future__ import annotations

import sys

from .annotations import Annotator, exception_event
from .counters import Counters
from .frames import Library
from .hooks import Hooks, Installer
from .messages import Configure, ExceptionEvent, SummaryEvent
from .pipe import Pipe
from .tracer import TracerSwitch


class ProbeSession:
    """The debuggee's side of one session: pipe, counters, annotations, hooks and tracer."""

    def __init__(self, annotation_fd: int | None) -> None:
        self.pipe = Pipe(annotation_fd)
        library = Library()
        self.counters = Counters(library)
        self.annotator = Annotator(self.pipe.send, library, self.counters)
        self.tracer = TracerSwitch(self.pipe.send)
        self.hooks = Hooks(self.pipe.send, self.annotator, self.counters, self.tracer)

    def install_hooks(self) -> None:
        """Wrap the hooked library functions, now and as their modules are imported."""
        sys.meta_path.insert(0, Installer(self.hooks))

    def configure(self, message: Configure) -> None:
        """The runner's settings: per-call-site limit, probe places, `trace_to_end`."""
        self.annotator.configure(message)
        self.tracer.trace_to_end = message["trace_to_end"]

    def start(self) -> None:
        """The script starts: hooks record from now on."""
        self.hooks.install_print()
        self.hooks.running = True

    def hit(self, probe: str) -> str:
        """Logpoint entry: annotate the probed frame; always returns '' (no output event)."""
        self.annotator.hit_at(probe, lambda: self.annotator.probed_frame(probe))
        return ""

    def summary(self) -> SummaryEvent:
        """The counters, sent once when the script ends (or is stopped from another thread)."""
        return self.counters.summary(self.annotator.hits)

    @staticmethod
    def exception(error: BaseException) -> ExceptionEvent:
        """The event of an uncaught exception."""
        return exception_event(error)


_sessions: list[ProbeSession] = []  # the one session of this process, once opened


def open_session(annotation_fd: int | None) -> ProbeSession:
    """The session of this run, which logpoints reach through `hit`."""
    session = ProbeSession(annotation_fd)
    _sessions[:] = [session]
    return session


def hit(probe: str) -> str:
    """What a logpoint calls."""
    return _sessions[0].hit(probe) if _sessions else ""
