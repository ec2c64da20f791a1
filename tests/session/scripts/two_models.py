"""Two models of one class with a custom `train_step` (as a GAN's generator and critic): one
`def`, two tf.function objects. Each is traced once; their graphs run 2 × 4 and 5 × 4 times."""

import numpy as np
import tensorflow as tf


class Stepper(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = tf.keras.layers.Dense(1, name="head")

    def call(self, x):
        return self.dense(x)

    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(self(x, training=True) - y))
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables, strict=True))
        return {"loss": loss}


x = np.random.rand(64, 4).astype("float32")
y = np.random.rand(64, 1).astype("float32")
first, second = Stepper(), Stepper()
for model, epochs in ((first, 2), (second, 5)):
    model.compile(optimizer="sgd")
    model.fit(x, y, batch_size=16, epochs=epochs, verbose=0)
