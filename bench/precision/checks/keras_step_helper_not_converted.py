"""Is a Keras model's train_step (and a method it calls) AutoGraph-converted? A Python `if` on
a tensor in a helper the step calls, under tf-keras (Keras 2) or Keras 3: run with
TF_USE_LEGACY_KERAS=1 for Keras 2."""
import numpy as np
import tensorflow as tf


class Model(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = tf.keras.layers.Dense(1)

    def generate(self, x, batch_size):
        if tf.shape(x)[0] != batch_size:
            raise ValueError("batch size mismatch")
        return self.dense(x)

    def call(self, x):
        return self.dense(x)

    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((self.generate(x, batch_size=tf.shape(y)[0]) - y) ** 2)
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables, strict=True))
        return {"loss": loss}


model = Model()
model.compile(optimizer="sgd")
x = np.random.rand(32, 4).astype("float32")
y = np.random.rand(32, 1).astype("float32")
try:
    model.fit(x, y, epochs=1, verbose=0)
    print(tf.keras.__name__, "fit works: the step's helper was AutoGraph-converted")
except Exception as error:
    print(tf.keras.__name__, "fit fails:", type(error).__name__, str(error).splitlines()[0][:120])
