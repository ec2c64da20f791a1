"""A training loop that never ends on its own: the session must be stopped from the editor."""
import tensorflow as tf
import tf_keras as keras

layer = keras.layers.Dropout(0.5)


@tf.function
def step(x):
    return layer(x, training=True)


x = tf.ones((2, 3))
while True:
    step(x)
