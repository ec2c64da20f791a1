"""A traced Keras `call` that stores a variable itself on `self` (`self.mean = self.moving_mean`,
the variable, not a value read from it) keeps a reference: what reads `self.mean` afterwards
sees the variable's value of that moment, whatever trace made the assignment. Prints the
attribute's value after each of three steps of a compiled fit that assigns the variable: it
follows the assignments (1.0, 2.0, 3.0), not the first trace."""
import numpy as np
import tensorflow as tf


class Running(tf.keras.layers.Layer):
    def build(self, input_shape):
        self.moving_mean = self.add_weight(shape=(), initializer="zeros", trainable=False)

    def call(self, inputs, training=False):
        if training:
            self.moving_mean.assign_add(1.0)
        self.mean = self.moving_mean
        return inputs


class Report(tf.keras.callbacks.Callback):
    def __init__(self, layer):
        super().__init__()
        self.layer = layer

    def on_train_batch_end(self, batch, logs=None):
        print("after step", batch, "self.mean =", float(np.asarray(self.layer.mean)))


layer = Running()
model = tf.keras.Sequential([tf.keras.Input((2,)), layer, tf.keras.layers.Dense(1)])
model.compile("sgd", "mse")
model.fit(np.ones((3, 2)), np.ones((3, 1)), batch_size=1, epochs=1, verbose=0,
          callbacks=[Report(layer)])
