"""The Keras-2-only tells of `keras_flavor.KERAS_2_IDIOMS` that name a module Keras 3 dropped:
the old layer and utils modules (`from keras.layers.core import Dense`, `keras.utils.np_utils`),
and standalone Keras 3's `keras.preprocessing.text` and `ImageDataGenerator` (TF 2.21's
`tf.keras` namespace keeps those two, so only the `keras.` spelling is a tell). Each is tried
under the running Keras: Keras 3 has none of them, so code that imports one runs on Keras 2;
tf-keras 2.21 has most (`layers.recurrent`, `layers.merge` and the like are older still: the
standalone Keras 2 releases'). Not tells, though Keras 3 lacks them too: `K.learning_phase()`,
`Layer.add_update`, `Model.predict_classes` (printed last), which code that otherwise runs on
Keras 3 may call in a branch rarely taken (spektral's `if training is None:`).

    TF_USE_LEGACY_KERAS=1 .venv/bin/python bench/precision/checks/keras3_removed_modules.py
    .venv/bin/python bench/precision/checks/keras3_removed_modules.py
"""

import importlib
import os

import tensorflow as tf

keras = tf.keras
package = "tf_keras" if os.environ.get("TF_USE_LEGACY_KERAS") == "1" else "keras"
print(tf.__version__, package)
modules = [f"layers.{name}" for name in (
    "core", "convolutional", "recurrent", "normalization", "advanced_activations", "embeddings",
    "merge", "pooling", "wrappers", "cudnn_recurrent")] + [
    f"utils.{name}" for name in ("np_utils", "vis_utils", "data_utils", "layer_utils",
                                 "conv_utils")] + ["preprocessing.text"]
for module in modules:
    try:
        importlib.import_module(f"{package}.{module}" if package == "keras"
                                else f"{package}.src.{module}")
        print(f"{module}: importable")
    except ImportError as error:
        print(f"{module}: {type(error).__name__}")
standalone = importlib.import_module(package)
print(f"{package}.preprocessing.image.ImageDataGenerator:",
      hasattr(standalone.preprocessing.image, "ImageDataGenerator"))
print("tf.keras.preprocessing.image.ImageDataGenerator:",
      hasattr(keras.preprocessing.image, "ImageDataGenerator"))
print("backend.learning_phase:", hasattr(keras.backend, "learning_phase"))
print("Layer.add_update:", hasattr(keras.layers.Layer, "add_update"))
print("Model.predict_classes:", hasattr(keras.Model, "predict_classes"))
