"""Keras 3 (TF 2.21): a model saved to a folder (`model.save("model/")`) raises ValueError (a
`.keras` or `.h5` file is needed), and a `Sequential` built without an `Input`, saved and
loaded, has no `model.input` (AttributeError), so code that reads it stops there.

    .venv/bin/python bench/precision/checks/keras3_loaded_sequential_has_no_input.py
"""
import os
import tempfile

import numpy as np
import tensorflow as tf

model = tf.keras.Sequential([tf.keras.layers.Conv2D(2, 3), tf.keras.layers.GlobalAveragePooling2D(),
                             tf.keras.layers.Dense(1, activation="sigmoid")])
model.compile(loss="binary_crossentropy", optimizer="adam")
model.fit(np.zeros((2, 8, 8, 3), "float32"), np.zeros((2, 1)), epochs=1, verbose=0)
folder = tempfile.mkdtemp()
try:
    model.save(os.path.join(folder, "model/"))
    print("save to a folder: saved")
except ValueError as error:
    print("save to a folder: ValueError", str(error)[:50])
model.save(os.path.join(folder, "m.keras"))
loaded = tf.keras.models.load_model(os.path.join(folder, "m.keras"))
try:
    print("input:", loaded.input.name)
except AttributeError as error:
    print("input: AttributeError", str(error)[:60])
