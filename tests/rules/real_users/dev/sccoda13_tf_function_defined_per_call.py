# Real-user hazard: a sampling method defines its @tf.function inside the method body, so every chain traces a new function.
# After: https://github.com/theislab/scCODA/issues/13 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): 8 chains trace 8 functions; 'triggered tf.function retracing' warnings from the 5th chain on
import tensorflow as tf


class CountModel:
    def __init__(self, counts):
        self.counts = tf.constant(counts, dtype=tf.float32)
        self.position = tf.Variable(tf.zeros_like(self.counts))

    def run_chain(self, num_steps):
        @tf.function
        def mcmc_steps(n):
            for _ in tf.range(n):
                self.position.assign_add(tf.random.normal(tf.shape(self.position)) * 0.01)
            return tf.reduce_mean(self.position)

        return mcmc_steps(tf.constant(num_steps))  # expect: TFI014


model = CountModel([[1.0, 2.0], [3.0, 4.0]])
for _ in range(8):
    model.run_chain(100)
