# Real-user hazard: a model counts its training steps in a Python attribute inside train_step to drive a schedule; fit compiles train_step, so the count moves only while tracing.
# After: https://github.com/bayesflow-org/bayesflow/issues/223 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): after 2 epochs of 8 batches (16 steps) current_step is 2 (it moved only in the two traces of train_step), so the noise schedule stayed at its first values; with run_eagerly=True it is 16
import numpy as np
import tensorflow as tf


class ScheduledModel(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = tf.keras.layers.Dense(1)
        self.current_step = 0

    def call(self, x):
        return self.dense(x)

    def train_step(self, data):
        x, y = data
        noise_scale = 1.0 / (1 + self.current_step)
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(self(x + noise_scale) - y))
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables, strict=True))
        self.current_step += 1  # expect: TFI006
        return {"loss": loss}


model = ScheduledModel()
model.compile(optimizer="sgd")
model.fit(np.random.rand(64, 3), np.random.rand(64, 1), batch_size=8, epochs=2, verbose=0)
print("steps trained: 16, current_step:", model.current_step)
