# Real-user hazard: a script turns eager execution off (tf.compat.v1.disable_eager_execution) and trains a model that overrides train_step; with eager execution off, tf.keras fit runs its TF1 graph training loop, which never calls train_step, so the custom step is silently skipped.
# After: https://github.com/tensorflow/tensorflow/issues/54281 (pattern only; this code is ours)
# Confirmed on TF 2.21 (tf-keras): fit for 2 epochs of 4 batches logs only ['loss'] (the compiled mse) and the train_step counter stays 0; without the disable_eager_execution line the same script logs ['clipped_l1'] and counts 8 train_step calls
import os

os.environ["TF_USE_LEGACY_KERAS"] = "1"
import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()  # expect: NEW-train-step-ignored-without-eager


class ClippedRegressor(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = tf.keras.layers.Dense(1)
        self.custom_steps = tf.Variable(0, trainable=False)

    def call(self, inputs):
        return self.dense(inputs)

    def train_step(self, data):
        features, target = data
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.abs(self(features, training=True) - target))
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip([tf.clip_by_norm(g, 0.1) for g in grads], self.trainable_variables, strict=True))
        self.custom_steps.assign_add(1)
        return {"clipped_l1": loss}


model = ClippedRegressor()
model.compile(optimizer="sgd", loss="mse")
history = model.fit(np.random.rand(32, 4), np.random.rand(32, 1), batch_size=8, epochs=2, verbose=0)
print("logged:", sorted(history.history))
print("train_step calls:", tf.keras.backend.get_value(model.custom_steps))
