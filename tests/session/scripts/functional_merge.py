"""A functional model whose layers get their KerasTensors in a list or as a keyword: model
construction, not eager runs."""

import numpy as np
import tensorflow as tf

keras = tf.keras
left, right = keras.Input((4,)), keras.Input((4,))
total = keras.layers.Add(name="add")([left, right])
scaled = keras.layers.Dense(1, name="head")(inputs=total)
model = keras.Model([left, right], scaled)
model.compile(optimizer="sgd", loss="mse")
x = np.ones((8, 4), "float32")
model.fit([x, x], np.ones((8, 1), "float32"), batch_size=4, epochs=1, verbose=0)
