"""A tf-keras (Keras 2) layer whose `tf.function` method rebinds `self.state` (a `tf.Variable`) to a
tensor in a loop (beliefppg's PriorLayer): the running state does not carry from batch to batch."""
import numpy as np
import tensorflow as tf
import tf_keras as keras


class Running(keras.layers.Layer):
    def __init__(self):
        super().__init__()
        self.state = tf.Variable(0.0)

    @tf.function
    def run(self, x):
        i = tf.constant(0)
        out = tf.TensorArray(tf.float32, size=tf.shape(x)[0])
        while i < tf.shape(x)[0]:
            self.state = self.state + x[i, 0]  # a running sum meant to persist
            out = out.write(i, tf.reshape(self.state, [1]))
            i += 1
        return out.stack()

    def call(self, x):
        return self.run(x)


inputs = keras.Input((1,))
model = keras.Model(inputs, Running()(inputs))
x = np.ones((4, 1), "float32")
print("one batch of 4:", model.predict(x, batch_size=4, verbose=0).ravel())
print("batches of 1:  ", model.predict(x, batch_size=1, verbose=0).ravel())
print("state is now a", type(model.layers[-1].state).__name__)
