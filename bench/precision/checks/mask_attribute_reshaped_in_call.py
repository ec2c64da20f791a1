"""TFI006: a layer keeps a fixed attention mask (a (batch, n) bool tensor given to `__init__`) and
its `call` rebinds it, `self.mask = <mask reshaped to (batch, 1, n)>`, a rank-specific reshape, as
attention layers do with `rearrange(self.mask, "b n -> b () n")`. The reshape only fits the
original 2-D mask, so the layer survives only the first run of its `call`.

The script tries, on a fresh model each time: two eager calls, then `fit`; it prints what each
does.

Observed on TF 2.21: tf-keras (Keras 2): the first eager call works, the second raises
ValueError "too many values to unpack (expected 2)" (the stored mask is now 3-D); `fit` on a
fresh model raises the same at once (its first trace creates the weights and optimizer slots, so
tf.function traces the step again, and the second trace meets the reshaped mask).
Keras 3: even the first eager call raises, since Keras 3 first runs `call` symbolically to
build the layer, so the real call sees the already reshaped mask; `fit` raises too.

    .venv/bin/python bench/precision/checks/mask_attribute_reshaped_in_call.py
    TF_USE_LEGACY_KERAS=1 .venv/bin/python bench/precision/checks/mask_attribute_reshaped_in_call.py
"""

import os

import numpy as np
import tensorflow as tf

keras = tf.keras
N, HEADS = 6, 2


class MaskedScores(keras.layers.Layer):
    def __init__(self, mask):
        super().__init__()
        self.mask = mask
        self.proj = keras.layers.Dense(HEADS * N)

    def call(self, x):
        b, n = self.mask.shape  # the pattern under test: only fits the 2-D mask
        self.mask = tf.reshape(self.mask, (b, 1, n))
        scores = tf.reshape(self.proj(x), (-1, HEADS, N))
        return tf.reduce_sum(tf.where(self.mask, -1e9, scores), axis=1)


class Net(keras.Model):
    def __init__(self, mask):
        super().__init__()
        self.attn = MaskedScores(mask)
        self.out = keras.layers.Dense(1)

    def call(self, x):
        return self.out(self.attn(x))


def short(error):
    text = " ".join(str(error).split())
    key = "too many values to unpack (expected 2)"
    return type(error).__name__ + ": " + (key if key in text else text[:120])


mask = tf.constant([[False] * (N - 1) + [True]])
x = np.ones((1, N), "float32")
print("tf.keras is", "tf-keras (Keras 2)" if os.environ.get("TF_USE_LEGACY_KERAS") else "Keras 3")

net = Net(mask)
for i in (1, 2):
    try:
        net(x)
        print(f"eager call {i}: ok")
    except Exception as error:
        print(f"eager call {i}: {short(error)}")

net = Net(mask)
net.compile(optimizer="sgd", loss="mse")
try:
    net.fit(x, np.ones((1, 1)), epochs=3, verbose=0)
    print("fit: ok")
except Exception as error:
    print("fit:", short(error))
