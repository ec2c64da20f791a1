"""Analogue of scaaml 3.0.5, papers/2024/GPAM/gpam_ecc_cm1.py:193-202 (TFI009): a Keras layer that makes its position/offset parameters as raw
tf.Variable(lambda: initializer(shape)) in __init__ (next to Dense sublayers), used in call via
einsum, inside a functional Model trained with fit. Are they listed / trained?"""
import os

import numpy as np
import tensorflow as tf

layers = tf.keras.layers
print("tf.keras is", "tf-keras (Keras 2)" if os.environ.get("TF_USE_LEGACY_KERAS") else "Keras 3")


class Unit(layers.Layer):
    def __init__(self, dim, max_len, **kw):
        super().__init__(**kw)
        self.proj = layers.Dense(dim)
        init = tf.random_normal_initializer(stddev=0.5)
        self.pos = tf.Variable(lambda: init(shape=[max_len], dtype=tf.float32))
        self.gamma = tf.Variable(lambda: init(shape=[dim], dtype=tf.float32))

    def call(self, x):
        h = tf.einsum("bnd,d->bnd", self.proj(x), self.gamma)
        return h + self.pos[None, :, None]


inp = tf.keras.Input((5, 3))
out = layers.Dense(1)(layers.Flatten()(Unit(4, 5)(inp)))
model = tf.keras.Model(inp, out)
model.compile(optimizer=tf.keras.optimizers.Adam(0.05), loss="mse")
unit = model.layers[1]
before = {"pos": unit.pos.numpy().copy(), "gamma": unit.gamma.numpy().copy()}
x = np.random.rand(64, 5, 3).astype("float32")
y = np.random.rand(64, 1).astype("float32")
model.fit(x, y, epochs=3, verbose=0)
print("trainable weights of the layer:", [w.name for w in unit.trainable_weights])
for name in before:
    v = getattr(unit, name)
    print(f"{name}: in model.trainable_weights {any(v is w for w in model.trainable_weights)}, "
          f"moved by fit {not np.allclose(before[name], v.numpy())}")
