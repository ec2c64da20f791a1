"""TFI012: a NumPy-based library function given to `compile(metrics=[...])`.

    python library_function_as_keras_metric.py graph|eager

TF 2.21 (Keras 3): `graph` (the default compile) fails in fit, Keras calls the metric with
symbolic tensors (numpy.mean raises on them); `eager` (`run_eagerly=True`) trains.
"""

import sys

import numpy as np
import tensorflow as tf


def mean_match(y_true, y_pred):  # a NumPy function, as a library's metric is
    return np.mean(np.asarray(y_true) == np.round(np.asarray(y_pred)))


model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(1, "sigmoid")])
model.compile(optimizer="sgd", loss="binary_crossentropy", metrics=[mean_match],
              run_eagerly=sys.argv[1] == "eager")
try:
    model.fit(np.random.rand(16, 4), np.random.randint(0, 2, (16, 1)), verbose=0)
    print(sys.argv[1], "fit ok")
except (NotImplementedError, TypeError, ValueError) as error:
    print(sys.argv[1], type(error).__name__, str(error).strip().splitlines()[0][:100])
