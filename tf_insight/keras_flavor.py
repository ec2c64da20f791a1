"""Which Keras a file runs on: 3 (`keras`, and `tf.keras` on TF ≥ 2.16) or 2 (`tf_keras`,
`tensorflow.python.keras`, or `tf.keras` under `TF_USE_LEGACY_KERAS=1`).

Several hazards differ between them (tf-keras always passes `training=` and AutoGraph-converts
`Layer.call`; Keras 3 does neither and never tracks raw `tf.Variable`s), so rules ask here.
"""

from __future__ import annotations

from typing import Literal

from tf_insight.imports import ImportMap

Flavor = Literal["3", "2"]


def infer_flavor(text: str, imports: ImportMap, setting: str = "auto") -> Flavor:
    if setting in ("2", "3"):
        return "2" if setting == "2" else "3"
    if imports.imports_any("tf_keras", "tensorflow.python.keras"):
        return "2"
    # `os.environ["TF_USE_LEGACY_KERAS"] = "1"` before `import tensorflow` selects tf-keras.
    if "TF_USE_LEGACY_KERAS" in text and not imports.imports_any("keras"):
        return "2"
    return "3"
