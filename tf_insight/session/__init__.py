"""Guided debug sessions: run a script under debugpy and annotate Keras → AutoGraph →
custom_gradient → tf.function as it runs (`tf-insight trace`).

Layers, bottom up: `framing` (DAP bytes, sans-IO) → `channel` (requests by seq, events) →
`dap` (the adapter conversation) → `runner` (processes, pipes, cleanup). `debuggee/` runs in
the user's interpreter; nothing else here imports TensorFlow.

The names below are imported when first used (PEP 562): `tf-insight debug` and the editor's
debug adapter use only `debuggee/`, and the runner's imports cost ~50 ms of their start.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tf_insight.session.model import (
        ExceptionRecord,
        OutputSink,
        Retrace,
        SideEffect,
        Step,
        StopAfter,
        TraceConfig,
        TraceResult,
        Verdict,
    )
    from tf_insight.session.probes import STEP_PROBES
    from tf_insight.session.render import render_step, render_text
    from tf_insight.session.runner import run_trace

_MODULES = {
    **dict.fromkeys(("ExceptionRecord", "OutputSink", "Retrace", "SideEffect", "Step",
                     "StopAfter", "TraceConfig", "TraceResult", "Verdict"), "model"),
    "STEP_PROBES": "probes",
    "render_step": "render",
    "render_text": "render",
    "run_trace": "runner",
}
__all__ = [
    "STEP_PROBES",
    "ExceptionRecord",
    "OutputSink",
    "Retrace",
    "SideEffect",
    "Step",
    "StopAfter",
    "TraceConfig",
    "TraceResult",
    "Verdict",
    "render_step",
    "render_text",
    "run_trace",
]


def __getattr__(name: str) -> Any:
    module = _MODULES.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
