"""TFI009: a score layer keeps a global offset as a raw `tf.Variable` made in `__init__` and
initialised to the mean of the targets (as in biased matrix factorisation), inside a functional
model with regularised user/item biases and embeddings, trained with `fit`. Prints whether the
offset is in `model.trainable_weights` / `get_weights()`, where `fit` leaves it, and the
training and held-out MSE, so that the cost of an untrained offset can be read.

Synthetic ratings: popular items are rated higher, so the regularised per-item biases do not
absorb everything and the best offset differs from the plain mean.

Observed on TF 2.21: Keras 3 leaves the offset out of trainable_weights and get_weights (4
arrays) and `fit` keeps it at 3.489; tf-keras lists it (5 arrays) and `fit` moves it to ~3.22.
Held-out MSE ~0.264 (Keras 3) vs ~0.262 (tf-keras); runs vary by ~0.001.

    .venv/bin/python bench/precision/checks/raw_bias_variable_initialized_to_mean.py
    TF_USE_LEGACY_KERAS=1 .venv/bin/python bench/precision/checks/raw_bias_variable_initialized_to_mean.py
"""

import os

import numpy as np
import tensorflow as tf

keras = tf.keras


class AddOffset(keras.layers.Layer):
    def __init__(self, start, **kwargs):
        super().__init__(**kwargs)
        self.offset = tf.Variable(start)  # raw tf.Variable, meant to be trained

    def call(self, a, b, c):
        return self.offset + a + b + c


rng = np.random.default_rng(0)
n_users, n_items, n = 300, 200, 30000
popularity = rng.zipf(1.6, n_items).astype("float64")
items = rng.choice(n_items, n, p=popularity / popularity.sum())
users = rng.integers(0, n_users, n)
quality = 0.8 * np.log(popularity) / np.log(popularity).max() + rng.normal(0, 0.3, n_items)
ratings = np.clip(
    3.0 + quality[items] + rng.normal(0, 0.3, n_users)[users] + rng.normal(0, 0.5, n), 1, 5
)
ratings = ratings.astype("float32")
split = int(0.9 * n)
mean = np.mean(ratings[:split], dtype="f4")


def embed(inp, size, reg, name):
    e = keras.layers.Embedding(
        {"u": n_users, "i": n_items}[name[0]],
        size,
        embeddings_regularizer=keras.regularizers.l2(reg),
        name=name,
    )(inp)
    return keras.layers.Flatten()(e)


tf.random.set_seed(0)
u_in, i_in = keras.Input((1,), dtype="int32"), keras.Input((1,), dtype="int32")
dot = keras.layers.Dot(axes=1)(
    [embed(u_in, 8, 0.02 / n_users, "u_vec"), embed(i_in, 8, 0.02 / n_items, "i_vec")]
)
score_layer = AddOffset(mean)
score = score_layer(
    embed(u_in, 1, 0.2 / n_users, "u_bias"), embed(i_in, 1, 0.2 / n_items, "i_bias"), dot
)
model = keras.Model([u_in, i_in], score)
model.compile(keras.optimizers.Adam(0.01), "mse")
x = [users[:, None].astype("int32"), items[:, None].astype("int32")]
model.fit([a[:split] for a in x], ratings[:split], epochs=8, batch_size=1000, verbose=0)

print("tf.keras is", "tf-keras (Keras 2)" if os.environ.get("TF_USE_LEGACY_KERAS") else "Keras 3")
print("offset in trainable_weights:", any(w is score_layer.offset for w in model.trainable_weights))
print("weights saved by get_weights():", len(model.get_weights()))
print(f"offset: start {float(mean):.4f}, after fit {float(score_layer.offset.numpy()):.4f}")
pred = model.predict([a[split:] for a in x], verbose=0)[:, 0]
train_pred = model.predict([a[:split] for a in x], verbose=0)[:, 0]
print(
    f"train MSE {np.mean((train_pred - ratings[:split]) ** 2):.4f}, held-out MSE {np.mean((pred - ratings[split:]) ** 2):.4f}"
)
