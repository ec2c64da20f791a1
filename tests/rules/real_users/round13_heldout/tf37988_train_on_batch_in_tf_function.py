# Real-user hazard: a tf.function with an input signature trains a Keras model by calling model.train_on_batch on its symbolic arguments; train_on_batch is a high-level loop with its own tf.function and NumPy conversions, not something to run inside a graph.
# After: https://github.com/tensorflow/tensorflow/issues/37988 (pattern only; this code is ours)
# Confirmed on TF 2.21 (tf-keras): the eager train_on_batch returns a loss; the tf.function raises RuntimeError: Detected a call to `Model.train_on_batch` inside a `tf.function`. `Model.train_on_batch is a high-level endpoint that manages its own `tf.function`. Please move the call to `Model.train_on_batch` outside of all enclosing `tf.function`s. (with Keras 3 the same code trains without error: the hazard is tf-keras's)
import os

os.environ["TF_USE_LEGACY_KERAS"] = "1"
import numpy as np
import tensorflow as tf
from tensorflow import keras

model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(1)])
model.compile(optimizer="sgd", loss="mse")
features = np.ones((8, 4), dtype="float32")
targets = np.zeros((8, 1), dtype="float32")
print("eager train_on_batch loss:", model.train_on_batch(features, targets))


@tf.function(input_signature=[tf.TensorSpec((None, 4), tf.float32), tf.TensorSpec((None, 1), tf.float32)])
def train_batch(x, y):
    return model.train_on_batch(x, y)  # expect: TFI040


print("tf.function loss:", train_batch(features, targets))
