"""TFI009: raw `tf.Variable`s made in a Keras layer's `build` (a periodic embedding's
frequencies) and in a subclassed Model's `__init__` (a CLS token), trained with `fit` on a
dict-input `tf.data.Dataset`. Prints, for each raw variable, whether it is in
`model.trainable_weights` and whether `fit` moved it.

Observed on TF 2.21: Keras 3 (default) lists neither (4 trainable weights) and `fit` leaves both
at their initial values; tf-keras (TF_USE_LEGACY_KERAS=1) lists both (6) and `fit` moves both.

    .venv/bin/python bench/precision/checks/raw_tf_variable_in_layer_build.py
    TF_USE_LEGACY_KERAS=1 .venv/bin/python bench/precision/checks/raw_tf_variable_in_layer_build.py
"""

import numpy as np
import tensorflow as tf


class Fourier(tf.keras.layers.Layer):
    def build(self, input_shape):
        self.freq = tf.Variable(tf.random.normal((input_shape[-1], 4)), trainable=True)

    def call(self, x):
        v = self.freq[None] * x[..., None]
        return tf.concat([tf.sin(v), tf.cos(v)], axis=-1)


class Encoder(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.fourier = Fourier()
        self.proj = tf.keras.layers.Dense(8)
        self.token = tf.Variable(tf.random.normal((1, 8)), trainable=True)
        self.head = tf.keras.layers.Dense(1)

    def call(self, inputs):
        x = tf.concat([inputs["a"], inputs["b"]], axis=1)
        emb = self.proj(self.fourier(x))  # (batch, 2, 8)
        token = tf.repeat(self.token[None], tf.shape(x)[0], axis=0)  # (batch, 1, 8)
        return self.head(tf.reduce_mean(tf.concat([token, emb], axis=1), axis=1))


rng = np.random.default_rng(0)
a, b = rng.random((64, 1), dtype=np.float32), rng.random((64, 1), dtype=np.float32)
ds = tf.data.Dataset.from_tensor_slices(({"a": a, "b": b}, (a > 0.5).astype("float32"))).batch(16)
model = Encoder()
model.compile(optimizer=tf.keras.optimizers.Adam(0.05), loss="mse")
model.fit(ds, epochs=1, verbose=0)
raw = {"freq (Layer.build)": model.fourier.freq, "token (Model.__init__)": model.token}
before = {name: v.numpy().copy() for name, v in raw.items()}
model.fit(ds, epochs=3, verbose=0)
print("trainable weights:", len(model.trainable_weights))
for name, v in raw.items():
    listed = any(v is w for w in model.trainable_weights)
    print(f"{name}: in trainable_weights {listed}, moved by fit {not np.allclose(before[name], v.numpy())}")
