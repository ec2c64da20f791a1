"""TF Insight core: static analysis, error explanation and guided debug sessions for
TensorFlow/Keras graph-mode hazards.

The core knows nothing of LSP or VS Code and never imports TensorFlow: static analysis reads
source, and runtime work runs in the user's interpreter (see :mod:`tf_insight.session`).
"""

__version__ = "0.1.0"


def load_ipython_extension(ipython: object) -> None:
    """`%load_ext tf_insight` (see :mod:`tf_insight.ipython_extension`)."""
    from tf_insight.ipython_extension import load

    load(ipython)


def unload_ipython_extension(ipython: object) -> None:
    from tf_insight.ipython_extension import unload

    unload(ipython)
