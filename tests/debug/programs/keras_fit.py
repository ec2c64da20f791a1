"""A Keras 3 model with a layer of ours and its own train_step, fitted for two epochs of two
batches: the breakpoint lines are marked `# stop: NAME`."""

import keras
import tensorflow as tf


class Scale(keras.layers.Layer):
    def call(self, inputs, training=None):
        return inputs * 3  # stop: call


class Trainer(keras.Model):
    def train_step(self, data):
        tf.debugging.assert_rank(data[0], 2)  # stop: train_step
        return super().train_step(data)


inputs = keras.Input((2,))
model = Trainer(inputs, keras.layers.Dense(1)(Scale(name="scale")(inputs)))
model.compile(optimizer="sgd", loss="mse")
model.fit(tf.ones((8, 2)), tf.ones((8, 1)), batch_size=4, epochs=2, verbose=0)
print("fitted")
