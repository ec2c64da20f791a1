# Real-user hazard: a likelihood object's tf.function reads the event data from an attribute instead of taking it as an argument; after set_data swaps in a new data tensor, the traced function keeps using the old one.
# After: https://github.com/FlamTeam/flamedisx/issues/53 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): with the first dataset the traced value is -1.193; after set_data the traced function still returns -1.193 while the same formula run eagerly on the new data gives -2.193
import numpy as np
import tensorflow as tf


class RateLikelihood:
    def __init__(self, energies):
        self.set_data(energies)

    def set_data(self, energies):
        self.data_tensor = tf.constant(energies, tf.float32)

    @tf.function
    def log_likelihood(self, rate):
        events = self.data_tensor  # expect: TFI003
        return tf.reduce_sum(-rate * events + tf.math.log(rate)) / tf.cast(tf.size(events), tf.float32)

    def eager_log_likelihood(self, rate):
        return tf.reduce_sum(-rate * self.data_tensor + tf.math.log(rate)) / tf.cast(tf.size(self.data_tensor), tf.float32)


likelihood = RateLikelihood(np.full(100, 1.0))
rate = tf.constant(0.5)
print("first dataset:", float(likelihood.log_likelihood(rate)))
likelihood.set_data(np.full(40, 3.0))
print("after set_data, traced:", float(likelihood.log_likelihood(rate)))
print("after set_data, eager:", float(likelihood.eager_log_likelihood(rate)))
