"""TFI013 (round 16 dev, poisson-cnn): a Python `if` on a tensor comparison in a custom
`train_step`; run with `keras` or `tf_keras`. `fit` raises OperatorNotAllowedInGraphError on
both: Keras runs the step from its own tf.function without AutoGraph-converting it.

    .venv/bin/python bench/precision/checks/tensor_if_in_train_step.py keras
    .venv/bin/python bench/precision/checks/tensor_if_in_train_step.py tf_keras
"""
import sys

import numpy as np
import tensorflow as tf

keras = __import__("tf_keras" if sys.argv[1] == "tf_keras" else "keras")


class PeakLogged(keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = keras.layers.Dense(1)

    def call(self, x):
        return self.dense(x)

    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((self(x) - y) ** 2)
        grads = tape.gradient(loss, self.trainable_variables)
        peak = tf.constant(-999.0)
        for grad in grads:
            size = tf.reduce_max(tf.abs(grad))
            if peak < size:
                peak = size
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables, strict=True))
        return {"loss": loss}


model = PeakLogged()
model.compile(optimizer="sgd")
try:
    model.fit(np.ones((8, 3)), np.ones((8, 1)), verbose=0)
    print(sys.argv[1], "fit ok")
except Exception as error:
    print(sys.argv[1], "fit raised", type(error).__name__)
