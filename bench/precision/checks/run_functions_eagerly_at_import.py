"""python-doctr: `tf.config.run_functions_eagerly(True)` at import (doctr/models/modules/transformer/
tensorflow.py:16, imported by `import doctr`). Inside a @tf.function: a Python random draw, and
.numpy() of a tensor, then a Keras 3 model's call under fit."""
import random

import numpy as np
import tensorflow as tf

tf.config.run_functions_eagerly(True)


@tf.function
def blur_sigma(x):
    sigma = random.uniform(0.1, 2.0)
    return x * sigma, x.numpy().sum()


print("draws:", [round(float(blur_sigma(tf.ones(()))[0]), 3) for _ in range(3)])


class M(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.d = tf.keras.layers.Dense(1)

    def call(self, x):
        y = self.d(x)
        _ = y.numpy()  # eager only
        return y


m = M()
m.compile(loss="mse")
m.fit(np.ones((4, 2)), np.ones((4, 1)), verbose=0)
print("fit with .numpy() in call: OK")
