"""Canonical TensorFlow/Keras names the analysis recognises (see :func:`imports.canonical`)."""

from __future__ import annotations

TF_FUNCTION = frozenset(
    {"tensorflow.function", "tensorflow.compat.v1.function", "tensorflow.experimental.function"}
)
CUSTOM_GRADIENT = frozenset({"tensorflow.custom_gradient", "tensorflow.compat.v1.custom_gradient"})
# `keras.remat` is `tf.recompute_grad` on the TensorFlow backend.
RECOMPUTE_GRAD = frozenset({
    "tensorflow.recompute_grad", "tensorflow.compat.v1.recompute_grad", "keras.remat",
    "keras.src.backend.common.remat.remat",
})
DO_NOT_CONVERT = frozenset(
    {
        "tensorflow.autograph.experimental.do_not_convert",
        "tensorflow.compat.v1.autograph.experimental.do_not_convert",
    }
)
# Callbacks given to these run as plain Python at every step, not as graph code.
PY_FUNCTIONS = frozenset({
    "tensorflow.py_function", "tensorflow.numpy_function", "tensorflow.compat.v1.py_func",
    "tensorflow.compat.v1.numpy_function", "tensorflow.compat.v1.py_function",
    "tensorflow.python.ops.script_ops.py_func", "tensorflow.python.ops.script_ops.eager_py_func",
    "tensorflow.python.ops.script_ops.numpy_function",
})
DATASET_FUNCTION_METHODS = {
    # method → (position of the function argument, its keyword names)
    "map": (0, ("map_func",)),
    "filter": (0, ("predicate",)),
    "flat_map": (0, ("map_func",)),
    "interleave": (0, ("map_func",)),
    "parallel_interleave": (0, ("map_func",)),
    "reduce": (1, ("reduce_func",)),
    "scan": (1, ("scan_func",)),
    "group_by_window": (0, ("key_func", "reduce_func")),
}
# Keras utilities that return a `tf.data.Dataset` (canonical names, every Keras spelling).
KERAS_DATASET_FACTORIES = frozenset({
    f"keras.{package}.{name}"
    for package in ("utils", "preprocessing")
    for name in (
        "image_dataset_from_directory", "text_dataset_from_directory",
        "timeseries_dataset_from_array", "audio_dataset_from_directory",
    )
})
DATASET_CHAIN_METHODS = frozenset(
    {
        "batch", "padded_batch", "unbatch", "shuffle", "repeat", "prefetch", "cache", "take",
        "skip", "shard", "zip", "concatenate", "apply", "with_options", "rebatch", "window",
        "enumerate", "ragged_batch", "map", "filter", "flat_map", "interleave", "unique",
    }
)


def keras_class_kind(qualname: str) -> str | None:
    """'layer', 'model', 'loss' or 'metric' for a Keras class name, else None."""
    if not qualname.startswith("keras."):
        return None
    parts = qualname.split(".")
    last = parts[-1]
    if not last[:1].isupper():
        return None
    if last in ("Model", "Sequential", "Functional") or "models" in parts or "training" in parts:
        return "model"
    if last == "Loss" or "losses" in parts:
        return "loss"
    if last == "Metric" or "metrics" in parts:
        return "metric"
    if last == "Layer" or "layers" in parts or "engine" in parts:
        return "layer"
    return None


# Libraries whose functions turn their arguments into NumPy arrays or iterate them in Python
# (metrics over label sequences, text and image libraries; `re`, which needs a Python string).
ARRAY_LIBRARIES = ("numpy.", "sklearn.", "scipy.", "seqeval.", "rouge.", "rouge_score.",
                   "nltk.", "jiwer.", "sacrebleu.", "editdistance.", "Levenshtein.", "cv2.",
                   "PIL.", "skimage.", "librosa.", "pandas.", "pywt.", "re.")
# NumPy functions that read only `.shape`/`.ndim`/`.dtype`, or take no array at all.
NUMPY_SAFE = frozenset({
    "shape", "ndim", "isscalar", "iterable", "dtype", "issubdtype", "iinfo", "finfo",
    "result_type", "promote_types", "can_cast", "broadcast_shapes", "errstate",
})
