"""`tf.summary` step handling inside graphs."""

from __future__ import annotations

import re

from tf_insight.explain.catalogue import links
from tf_insight.explain.catalogue.entry import Entry, entry
from tf_insight.explain.model import Incident

_FIX = """
    Give the step as int64 (or a Python int) — in the call or in `set_step`:

    ```python
    step = tf.Variable(0, dtype=tf.int64)
    tf.summary.experimental.set_step(step)

    @tf.function
    def log(loss):
        with writer.as_default():
            tf.summary.scalar("loss", loss, step=step)   # or tf.cast(i, tf.int64)
        step.assign_add(1)
    ```
"""


# `<tf.Tensor 'step:0' shape=() dtype=int32>`: the tensor a `tf.function` made of a `step` argument
_STEP_TENSOR = re.compile(r"<tf\.Tensor '[^'\n]*step[^'\n]*'", re.IGNORECASE)


def _in_summary_code(incident: Incident) -> bool:
    return any(
        "summary" in frame.path or "summary" in (frame.code or "") for frame in incident.frames
    )


SUMMARY_STEP_DTYPE = entry(
    "summary-step-dtype",
    title="`tf.summary` step is not int64",
    rule="TFI005",
    pattern=(
        r"(?:Tensor conversion requested dtype int64 for Tensor with dtype"
        r"|Input 'step' of 'WriteSummary' Op has type)"  # TF 2.15
        r" (?P<dtype>\w+)"
    ),
    defaults={"dtype": "non-int64"},
    types=("ValueError", "TypeError"),
    # The same conversion error comes from any op given int32 where it needs int64: without
    # frames, only a message naming the summary op or a step tensor is this case.
    when=lambda incident: _in_summary_code(incident) or "WriteSummary" in incident.message,
    stack_check="a `tf.summary` call on the stack",
    unframed=lambda incident: "WriteSummary" in incident.message
    or _STEP_TENSOR.search(incident.message) is not None,
    phrases=(
        r"tensorconversionrequesteddtypeint64fortensorwithdtype",
        r"inputstepofwritesummaryophastype",
    ),
    summary="""
        A `tf.summary.*` call got `step=` as a `$dtype` tensor; summaries require an int64 step.
    """,
    cause="""
        `tf.summary.write` converts the step with `convert_to_tensor(step, tf.int64)`. Python
        ints convert fine, but an existing tensor keeps its dtype and TensorFlow never casts
        implicitly: `tf.constant(i)` is int32, a loop counter from `tf.range` is int32 by
        default, `optimizer.iterations` may be int64 or not depending on the Keras version.
    """,
    fix=_FIX,
    links=(links.SUMMARY_SCALAR, links.SUMMARY_GUIDE),
)

SUMMARY_STEP_UNREACHABLE = entry(
    "summary-step-unreachable",
    title="`tf.summary.experimental.set_step` got a non-int64 tensor (`AssertionError: Unreachable`)",
    rule="TFI005",
    pattern=r"^Unreachable\s*$",
    types=("AssertionError",),
    phrases=(
        r"^unreachable$",
    ),
    when=_in_summary_code,
    stack_check="a `tf.summary` call on the stack",
    summary="""
        A summary op inside a graph used the default step set with
        `tf.summary.experimental.set_step(...)`, and that step is not an int64 tensor; TF fails
        with an internal assertion instead of a dtype error.
    """,
    cause="""
        With no `step=` argument the summary reads the global default step. When that is an
        int32 tensor captured into the graph, op construction hits an internal
        `AssertionError: Unreachable` (`op_def_library.py`, `_ExtractInputsAndAttrs`) rather than
        the usual "requested dtype int64" message.
    """,
    fix=_FIX,
    links=(links.SUMMARY_SCALAR,),
)

ENTRIES: list[Entry] = [SUMMARY_STEP_DTYPE, SUMMARY_STEP_UNREACHABLE]
