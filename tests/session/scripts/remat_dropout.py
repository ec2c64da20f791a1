"""Keras 3: `RematScope(mode="full")` around a Dropout, then `fit` → custom_gradient kwargs error."""

import keras
import numpy as np

with keras.RematScope(mode="full"):
    dropout = keras.layers.Dropout(0.5)  # @remat-layer
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8), dropout, keras.layers.Dense(1)])
model.compile(optimizer="sgd", loss="mse")
x = np.ones((8, 4), "float32")
y = np.ones((8, 1), "float32")
model.fit(x, y, epochs=2, batch_size=4, verbose=0)  # @fit
