"""Explain graph-mode errors: paste what TensorFlow printed, get the cause and the fix.

`explain(text, root)` parses a traceback or warning (Keras 3 and tf-keras wrappers, AutoGraph
"in user code" sections, chained exceptions, log noise), matches it against the catalogue
of known graph-mode errors (`catalogue.ENTRIES`), finds the user frame that caused it, and,
given a workspace root, attaches the static analyzer's findings. Reads text only: no
TensorFlow import.
"""

from tf_insight.explain.engine import explain
from tf_insight.explain.explanation import ExceptionInfo, Explanation
from tf_insight.explain.model import Frame, FrameOrigin, LayerInfo
from tf_insight.explain.render import render_markdown

__all__ = [
    "ExceptionInfo",
    "Explanation",
    "Frame",
    "FrameOrigin",
    "LayerInfo",
    "explain",
    "render_markdown",
]
