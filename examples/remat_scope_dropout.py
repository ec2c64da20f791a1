"""Seed 000 on Keras 3: `keras.RematScope(mode="full")` wraps every layer's call in
tf.recompute_grad; `Dense` and `Dropout` are called with `training=True` inside the traced train
step (Keras 3's `Dense.call` names `training` too)."""

import numpy as np
import tensorflow as tf

keras = tf.keras

inputs = keras.Input((4,))
with keras.RematScope(mode="full"):
    hidden = keras.layers.Dense(8, activation="relu")(inputs)
    hidden = keras.layers.Dropout(0.5)(hidden)
outputs = keras.layers.Dense(1)(hidden)
model = keras.Model(inputs, outputs)
model.compile(optimizer="sgd", loss="mse")
model.fit(np.ones((8, 4)), np.ones((8, 1)), batch_size=4, epochs=1, verbose=0)
