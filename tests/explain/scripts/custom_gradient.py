"""custom_gradient / recompute_grad on Keras layers: `python custom_gradient.py CASE`.

Run with the default Keras 3, or with `TF_USE_LEGACY_KERAS=1` for tf-keras. The line that
raises is marked `# @raise: CASE`.
"""

import sys

import numpy as np
import tensorflow as tf

keras = tf.keras


class MaskedIdentity(keras.layers.Layer):
    """`mask` in the signature: Keras 3 passes mask=None, tf-keras passes training=."""

    @tf.custom_gradient
    def call(self, inputs, mask=None):
        return tf.identity(inputs), lambda dy: dy


class TrainingIdentity(keras.layers.Layer):
    """`training` in the signature: Keras 3 passes training=True inside fit."""

    @tf.custom_gradient
    def call(self, inputs, training=None):
        return tf.identity(inputs), lambda dy: dy


class RecomputedDense(keras.layers.Layer):
    """recompute_grad on a method: the backward pass converts `self` to a tensor."""

    def __init__(self):
        super().__init__()
        self.kernel = self.add_weight(name="kernel", shape=(3, 1))

    @tf.recompute_grad  # @verdict: recompute_method
    def call(self, inputs, **kwargs):
        return tf.matmul(inputs, self.kernel)


def functional_build():
    inputs = keras.Input((3,))
    outputs = MaskedIdentity()(inputs)  # @raise: functional_build
    keras.Model(inputs, outputs)


def training_data():
    return np.ones((8, 3), "float32"), np.ones((8, 3), "float32")


def sequential_fit():
    # tf-keras calls the layer (with training=None) while building the Sequential model.
    layers = [keras.Input((3,)), TrainingIdentity(), keras.layers.Dense(3)]
    model = keras.Sequential(layers)  # @raise: sequential_build_tfk
    model.compile(optimizer="sgd", loss="mse")
    model.fit(*training_data(), epochs=1, verbose=0)  # @raise: sequential_fit


class RecomputedModel(keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = RecomputedDense()

    def call(self, inputs):
        return self.dense(inputs)


def recompute_method_fit():
    model = RecomputedModel()
    model.compile(optimizer="sgd", loss="mse", run_eagerly="eager" in sys.argv[2:])
    x, y = np.ones((8, 3), "float32"), np.ones((8, 1), "float32")
    model.fit(x, y, verbose=0)  # @raise: recompute_method


CASES = {
    "functional_build": functional_build,
    "sequential_fit": sequential_fit,
    "recompute_method": recompute_method_fit,
}

if __name__ == "__main__":
    CASES[sys.argv[1]]()
