# Real-user hazard: a subclassed model branches with a Python `if` on its input tensor; eager calls work, fit does not.
# After: https://github.com/tensorflow/tensorflow/issues/26268 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): eager call works; fit raises OperatorNotAllowedInGraphError: Using a symbolic tf.Tensor as a Python bool is not allowed
import numpy as np
import tensorflow as tf


class MyModel(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = tf.keras.layers.Dense(1)

    def call(self, x):
        if tf.reduce_sum(x) > 0:  # expect: TFI013
            return self.dense(x) + 1.0
        return self.dense(x) - 1.0


m = MyModel()
print(m(tf.ones([1, 2])))
m.compile(loss="mse", optimizer="sgd")
m.fit(np.ones([4, 2]), np.ones([4, 1]), verbose=0)
