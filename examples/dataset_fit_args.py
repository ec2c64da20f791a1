"""Seed 003 §3.4: a tf.data.Dataset brings its own batching and weights."""

import numpy as np
import tensorflow as tf

keras = tf.keras

x, y = np.ones((8, 4), "float32"), np.ones((8, 1), "float32")
dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(4)
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
model.compile(optimizer="sgd", loss="mse")
model.fit(dataset, batch_size=2, epochs=1, verbose=0)
model.fit(dataset, sample_weight=np.ones(8), epochs=1, verbose=0)
