"""A subclassed Keras Model whose constructor skips its parent's and calls the grandparent's
with a positional argument (`super(Base, self).__init__(None)`): prints whether the model can
be made at all. Keras 3's `Model.__init__` hands the argument to `Layer.__init__`, which takes
none (TypeError), so nothing after that line in the constructor runs.

    .venv/bin/python bench/precision/checks/model_init_given_a_positional_argument.py
    TF_USE_LEGACY_KERAS=1 .venv/bin/python bench/precision/checks/model_init_given_a_positional_argument.py
"""

import os

import tensorflow as tf

keras = tf.keras


class Base(keras.Model):
    def __init__(self, network):
        super().__init__()
        self.network = network


class Weighted(Base):
    def __init__(self, n):
        super(Base, self).__init__(None)
        self.weights_of_parts = tf.Variable(tf.ones((n,)) / n)


print("tf.keras is", "tf-keras (Keras 2)" if os.environ.get("TF_USE_LEGACY_KERAS") else "Keras 3")
try:
    model = Weighted(2)
    print("made; raw variable tracked:", len(model.trainable_weights) == 1)
except TypeError as error:
    print("TypeError:", error)
