"""TFI009 premise on a Keras 2 package (qkeras 0.9.0 findings on `self._iteration`, `self.step`,
`self.ema_min`/`self.ema_max`). A layer keeps raw `tf.Variable`s: an int64 step counter made in
`__init__`, a non-trainable int64 counter and a float range made in `build`, and bumps them in
`call`. Prints, under the running Keras, whether `layer.weights` lists them and whether
`save_weights`/`load_weights` brings them back. Then tries two Keras 2-only idioms that a
batchnorm-folding layer uses: `BatchNormalization(fused=..., virtual_batch_size=...,
adjustment=...)` and the private `BatchNormalization._get_training_value`.
tf-keras tracks and restores all three variables and accepts both idioms; Keras 3 tracks none of
them and rejects the BatchNormalization arguments at construction.

    TF_USE_LEGACY_KERAS=1 .venv/bin/python bench/precision/checks/keras2_layer_raw_counter_and_bn_kwargs.py
    .venv/bin/python bench/precision/checks/keras2_layer_raw_counter_and_bn_kwargs.py
"""

import os
import tempfile

import numpy as np
import tensorflow as tf

keras = tf.keras
legacy = bool(os.environ.get("TF_USE_LEGACY_KERAS"))


class Counting(keras.layers.Layer):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.count = tf.Variable(-1, dtype=tf.int64)  # raw, made in __init__

    def build(self, input_shape):
        self.seen = tf.Variable(-1, trainable=False, name="seen", dtype=tf.int64)  # raw, in build
        self.high = tf.Variable(tf.zeros((1,)), trainable=False, name="high")  # raw, in build

    def call(self, x, training=None):
        if training:
            self.count.assign_add(1)
            self.seen.assign_add(1)
            self.high.assign(tf.maximum(self.high, tf.reduce_max(x, keepdims=True)[0]))
        return x * 2.0


def make():
    inp = keras.Input((3,))
    layer = Counting()
    model = keras.Model(inp, keras.layers.Dense(1)(layer(inp)))
    model.compile("sgd", "mse")
    return model, layer


print("tf.keras is", "tf-keras (Keras 2)" if legacy else "Keras 3")
model, layer = make()
model.fit(np.full((8, 3), 4.0, "float32"), np.zeros((8, 1)), batch_size=4, epochs=2, verbose=0)
print("layer.weights:", sorted(v.name.split("/")[-1].split(":")[0] for v in layer.weights))
print("after fit: count/seen/high =", int(layer.count), int(layer.seen), float(layer.high[0]))
path = os.path.join(tempfile.mkdtemp(), "m.weights.h5")
model.save_weights(path)
fresh, fresh_layer = make()
fresh.load_weights(path)
print("fresh model after load_weights: count/seen/high =",
      int(fresh_layer.count), int(fresh_layer.seen), float(fresh_layer.high[0]))
try:
    keras.layers.BatchNormalization(fused=None, virtual_batch_size=None, adjustment=None)
    print("BatchNormalization(fused=, virtual_batch_size=, adjustment=): ok")
except Exception as error:  # we print what happens
    print("BatchNormalization(fused=, virtual_batch_size=, adjustment=) raises",
          type(error).__name__, str(error)[:100])
print("BatchNormalization has _get_training_value:",
      hasattr(keras.layers.BatchNormalization(), "_get_training_value"))
