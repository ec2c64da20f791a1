"""TFI009: a layer keeps state (a support set, a lookup) in raw `tf.Variable`s and sets it
through a `tf.function` method. Prints whether Keras lists the variable in `weights`, and what a
model saved with `model.save` and loaded again holds in it.

    .venv/bin/python bench/precision/checks/raw_variable_state_lost_on_save.py
    TF_USE_LEGACY_KERAS=1 .venv/bin/python bench/precision/checks/raw_variable_state_lost_on_save.py
"""

import os
import tempfile

import tensorflow as tf

keras = tf.keras


class Scorer(keras.layers.Layer):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.support = tf.Variable(tf.zeros((0, 3)), shape=tf.TensorShape([None, 3]))

    @tf.function(input_signature=(tf.TensorSpec([None, 3], tf.float32),))
    def set_support(self, support):
        self.support.assign(support)
        return tf.shape(support)[0]

    def call(self, inputs):
        return tf.linalg.matmul(inputs, self.support, transpose_b=True)


scorer = Scorer()
model = keras.Sequential([keras.Input((3,)), scorer])
scorer.set_support(tf.ones((4, 3)))
print("in weights:", any(w is scorer.support for w in scorer.weights), len(scorer.weights))
print("support before saving:", scorer.support.numpy().shape)
folder = tempfile.mkdtemp()
legacy = os.environ.get("TF_USE_LEGACY_KERAS") == "1"
path = os.path.join(folder, "m.h5" if legacy else "m.keras")
model.save(path)
loaded = keras.models.load_model(path, custom_objects={"Scorer": Scorer})
print("support after loading:", loaded.layers[-1].support.numpy().shape)
