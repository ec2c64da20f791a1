"""A Keras 2 script that saves and loads weights as a TensorFlow checkpoint (a path without a
`.weights.h5`, `.keras` or `.h5` suffix, often followed by `.expect_partial()`) stops there on
Keras 3: TF 2.21 raises `ValueError: File format not supported: filepath=...weights. Keras 3
only supports V3 .keras files, .weights.h5 files, legacy H5 format files`, before any line after
it runs. A finding further down such a path is not what the user meets first.

    .venv/bin/python bench/precision/checks/keras3_load_weights_checkpoint_path.py
"""
import tempfile
from pathlib import Path

import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(2)])
path = Path(tempfile.mkdtemp()) / "generator.weights"
try:
    model.load_weights(str(path))
    print("loaded")
except ValueError as error:
    print("ValueError:", str(error)[:120])
