"""TFI041: a tensor that a Keras 3 layer's `build` makes and keeps on `self`, read in `call`.

Keras 3 builds a layer at its first call; in a subclassed model that call is inside the step
`fit` traces, so the tensor belongs to that graph and the real trace reads it from another.
Prints, for a layer keeping `tf.sqrt(...)` from `build`, and for a layer whose `build` makes a
sublayer that keeps a tensor from its `__init__`: a subclassed model's fit and predict, and the
same layer in a functional model (built on a `keras.Input`, outside any trace).

Observed on TF 2.21 (Keras 3): both raise InaccessibleTensorError in the subclassed model and run
in the functional one; with `TF_USE_LEGACY_KERAS=1` (tf-keras builds under `init_scope`) all run.

    .venv/bin/python bench/precision/checks/tensor_made_in_build.py
"""

import os

import numpy as np
import tensorflow as tf

keras = tf.keras


class Scaled(keras.layers.Layer):
    def build(self, input_shape):
        self.scale = tf.sqrt(tf.cast(input_shape[-1], tf.float32))

    def call(self, x):
        return x / self.scale


class Halved(keras.layers.Layer):
    def __init__(self):
        super().__init__()
        self.factor = tf.math.sqrt(tf.constant(0.25))

    def call(self, x):
        return x * self.factor


class MakesInBuild(keras.layers.Layer):
    def build(self, input_shape):
        self.inner = Halved()

    def call(self, x):
        return self.inner(x)


class Net(keras.Model):
    def __init__(self, layer):
        super().__init__()
        self.layer = layer
        self.head = keras.layers.Dense(1)

    def call(self, x):
        return self.head(self.layer(x))


def functional(layer):
    inputs = keras.Input((4,))
    return keras.Model(inputs, keras.layers.Dense(1)(layer(inputs)))


print("tf.keras is", "tf-keras" if os.environ.get("TF_USE_LEGACY_KERAS") else "Keras 3")
for label, make in [("tensor made in build", Scaled),
                    ("sublayer made in build keeps a tensor", MakesInBuild)]:
    for how, model in [("subclassed", Net(make())), ("functional", functional(make()))]:
        try:
            model.compile(optimizer="sgd", loss="mse")
            model.fit(np.ones((8, 4)), np.ones((8, 1)), epochs=2, verbose=0)
            model.predict(np.ones((2, 4)), verbose=0)
            print(f"{label}, {how}: fit and predict ran")
        except Exception as error:  # which error is the point
            print(f"{label}, {how}: {type(error).__name__}")
