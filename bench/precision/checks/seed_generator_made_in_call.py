"""A Keras 3 layer that bumps a Python seed in `call` and makes `random.SeedGenerator(self.seed)`
there for a dropout mask (tkan's TKANCell): does the mask change from step to step under
`tf.function`, and eagerly?"""
import keras
import tensorflow as tf
from keras import ops, random


class Drop(keras.layers.Layer):
    def __init__(self):
        super().__init__()
        self.seed = 7

    def call(self, inputs, training=False):
        if training:
            self.seed = (self.seed + 1) % (2**32 - 1)
            generator = random.SeedGenerator(self.seed)
            return inputs * random.dropout(ops.ones_like(inputs), 0.5, seed=generator)
        return inputs


def why(error):
    lines = [line.strip() for line in str(error).splitlines() if "tf.Variable" in line]
    return lines[-1] if lines else str(error).splitlines()[0]


layer = Drop()
step = tf.function(lambda x: layer(x, training=True))
x = tf.ones((1, 8))
try:
    masks = {tuple(step(x).numpy().ravel()) for _ in range(3)}
    print("tf.function: masks differ between steps:", len(masks) > 1, "seed now", layer.seed)
except ValueError as error:
    print("tf.function raised", why(error))
eager = {tuple(layer(x, training=True).numpy().ravel()) for _ in range(3)}
print("eager: masks differ between calls:", len(eager) > 1)
