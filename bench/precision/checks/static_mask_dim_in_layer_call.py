"""TFI026: `mask.shape[0]` used as a reshape size in a Keras 3 layer's `call`, where `mask` is
not a batch-shaped input but a fixed attention mask held by the parent layer (a non-trainable
`keras.Variable` of shape (windows, n, n) made in its `build`, as shifted-window attention
does). Its first dimension is the number of windows, static at trace time; the batch stays `-1`.

Observed on TF 2.21 (Keras 3.15): functional build, `fit` with a last partial batch
(10 samples, batch 4) and `predict` on 3 samples all work, with output shape (3, 1).

    .venv/bin/python bench/precision/checks/static_mask_dim_in_layer_call.py
"""

import keras
import numpy as np
from keras import layers, ops


class MaskedScores(layers.Layer):
    def call(self, x, mask=None):
        n = x.shape[1]
        scores = ops.matmul(x, ops.transpose(x, (0, 2, 1)))  # (batch * windows, n, n)
        if mask is not None:
            windows = mask.shape[0]
            scores = ops.reshape(scores, (-1, windows, n, n)) + ops.expand_dims(mask, 0)
            scores = ops.reshape(scores, (-1, n, n))
        return ops.matmul(ops.softmax(scores, axis=-1), x)


class Windowed(layers.Layer):
    def __init__(self, windows, **kwargs):
        super().__init__(**kwargs)
        self.windows = windows
        self.inner = MaskedScores()

    def build(self, input_shape):
        n = input_shape[1] // self.windows
        fixed = np.where(np.eye(n) > 0, 0.0, -100.0)[None].repeat(self.windows, axis=0)
        self.mask = keras.Variable(fixed.astype("float32"), trainable=False)

    def call(self, x):
        n, c = x.shape[1] // self.windows, x.shape[2]
        out = self.inner(ops.reshape(x, (-1, n, c)), mask=self.mask)
        return ops.reshape(out, (-1, self.windows * n, c))


inputs = keras.Input((8, 3))
outputs = layers.Dense(1)(layers.Flatten()(Windowed(4)(inputs)))
model = keras.Model(inputs, outputs)
model.compile(optimizer="sgd", loss="mse")
x = np.random.default_rng(0).random((10, 8, 3)).astype("float32")
model.fit(x, np.ones((10, 1)), batch_size=4, epochs=1, verbose=0)
print("fit ok; predict shape:", model.predict(x[:3], verbose=0).shape)
