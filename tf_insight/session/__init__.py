"""Guided debug sessions: run a script under debugpy and annotate Keras → AutoGraph →
custom_gradient → tf.function as it runs (`tf-insight trace`).

Layers, bottom up: `framing` (DAP bytes, sans-IO) → `channel` (requests by seq, events) →
`dap` (the adapter conversation) → `runner` (processes, pipes, cleanup). `debuggee/` runs in
the user's interpreter; nothing else here imports TensorFlow.
"""

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
