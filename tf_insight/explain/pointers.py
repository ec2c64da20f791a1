"""One-line pointers for common failures that are not graph-mode hazards.

The catalogue explains graph-mode errors; users paste many others (a missing TensorBoard, CUDA
and cuDNN trouble, running out of memory, shapes that do not fit, a broken install). Such an
error stays unrecognised, but gets a line saying what kind of failure it is and where to look,
instead of advice about graphs that does not apply to it. Patterns are read from the exception
type and message only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tf_insight.explain.model import Incident


@dataclass(frozen=True)
class Pointer:
    """A kind of failure: how to recognise it, and the one line to say about it."""

    kind: str
    pattern: re.Pattern[str]
    text: str


def _pointer(kind: str, pattern: str, text: str) -> Pointer:
    return Pointer(kind, re.compile(pattern), text)


# In order: the first that matches wins (a missing TensorBoard module is not an install
# problem of TensorFlow).
POINTERS = (
    _pointer(
        "TensorBoard is not installed",
        r"TBNotInstalledError|TensorBoard (?:is not installed|could not be found)"
        r"|No module named '?tensorboard",
        "TensorBoard is missing: `pip install tensorboard` (the version of your TensorFlow); "
        "`tf.summary` and Keras's TensorBoard callback need it.",
    ),
    _pointer(
        "out of memory",
        r"ResourceExhaustedError|OOM when allocating|[Oo]ut of memory|OUT_OF_MEMORY",
        "The device ran out of memory: use smaller batches or a smaller model, close other "
        "processes on the GPU, or let TensorFlow grow its GPU memory "
        "(`tf.config.experimental.set_memory_growth(gpu, True)`).",
    ),
    _pointer(
        "a CUDA/cuDNN problem",
        r"cuDNN|CUDNN_STATUS|Failed to get convolution algorithm|DNN library is not found"
        r"|Could not load dynamic library '?lib(?:cud|cublas|cufft|curand|cusolver|cusparse)"
        r"|CUDA_ERROR|CUBLAS_STATUS|cuInit|no kernel image is available",
        "A CUDA/cuDNN problem, not your model code: the driver, CUDA and cuDNN must be the "
        "versions this TensorFlow was built for (its tested build configurations); on a small "
        "GPU, also turn on memory growth.",
    ),
    _pointer(
        "shapes that do not fit",
        r"Shapes \([^)\n]*\) and \([^)\n]*\) are incompatible|Incompatible shapes"
        r"|[Dd]imensions must be equal|is incompatible with the layer"
        r"|logits and labels must (?:have the same|be broadcastable)"
        r"|Input to reshape is a tensor with|Matrix size-incompatible|Cannot feed value of shape"
        r"|expected \S+ to have (?:shape|\d+ dimensions)",
        "The data and the model (or the loss) disagree on a shape: print the shapes of one "
        "batch (`x.shape`, `y.shape`) beside `model.summary()`; integer labels need a "
        "`sparse_` loss, one-hot labels the plain one.",
    ),
    _pointer(
        "an installation problem",
        r"DLL load failed|No module named|cannot import name|undefined symbol"
        r"|Failed to load the native TensorFlow runtime",
        "An installation problem, not your model code: TensorFlow, Keras, their add-ons (and "
        "on Windows the Visual C++ runtime) must be versions that fit together; a fresh "
        "virtual environment is the quickest check.",
    ),
)


def pointer_for(incident: Incident) -> Pointer | None:
    """The kind of common non-graph failure `incident` is, if it is one."""
    text = f"{incident.qualified_type}: {incident.message}"
    return next((pointer for pointer in POINTERS if pointer.pattern.search(text)), None)
