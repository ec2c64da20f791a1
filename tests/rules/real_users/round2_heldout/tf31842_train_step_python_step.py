# Real-user hazard: a tf.function train step takes the Python int step counter (for its summaries) as an argument.
# After: https://github.com/tensorflow/tensorflow/issues/31842 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): 31 traces in 30 calls, with 'triggered tf.function retracing' warnings from the 5th call on
import tempfile

import numpy as np
import tensorflow as tf


class Trainer:
    def __init__(self):
        self.model = tf.keras.Sequential([tf.keras.Input(shape=(8,)), tf.keras.layers.Dense(1)])
        self.optimizer = tf.keras.optimizers.Adam(1e-3)
        self.writer = tf.summary.create_file_writer(tempfile.mkdtemp())

    @tf.function
    def train_step(self, x, y, step):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(self.model(x, training=True) - y))
        grads = tape.gradient(loss, self.model.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.model.trainable_variables, strict=True))
        with self.writer.as_default():
            tf.summary.scalar("loss", loss, step=step)
        return loss


trainer = Trainer()
x, y = np.random.rand(16, 8).astype("float32"), np.random.rand(16, 1).astype("float32")
for step in range(30):
    trainer.train_step(x, y, step)  # expect: TFI004
print("traces:", trainer.train_step.experimental_get_tracing_count())
