"""TFI030: a tensor given as `training=` to a layer, in a model that is built and fit.

    python tensor_training_flag.py keras3|tfkeras batchnorm|dropout|gate|dense

TF 2.21: with Keras 3, `batchnorm`, `dropout` and `gate` (a layer of ours whose call says
`if training:`) raise OperatorNotAllowedInGraphError while the model is built, `dense` fits;
with tf-keras all four fit.
"""

import os
import sys

if sys.argv[1] == "tfkeras":
    os.environ["TF_USE_LEGACY_KERAS"] = "1"

import numpy as np
import tensorflow as tf


class Gate(tf.keras.layers.Layer):
    def call(self, inputs, training=None):
        if training:
            return inputs * 0.5
        return inputs


INNER = {"batchnorm": tf.keras.layers.BatchNormalization,
         "dropout": lambda: tf.keras.layers.Dropout(0.5), "gate": Gate,
         "dense": lambda: tf.keras.layers.Dense(4)}[sys.argv[2]]


class Wrap(tf.keras.layers.Layer):
    def __init__(self):
        super().__init__()
        self.inner = INNER()

    def call(self, inputs, training=None):
        flag = tf.logical_and(bool(training), self.trainable)
        return self.inner(inputs, training=flag)


try:
    model = tf.keras.Sequential([tf.keras.Input((4,)), Wrap(), tf.keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    model.fit(np.ones((8, 4)), np.ones((8, 1)), verbose=0)
    print(sys.argv[1:], "fit ok")
except Exception as error:
    print(sys.argv[1:], type(error).__name__)
