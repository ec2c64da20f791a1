"""Keras 3's train, test and predict functions share a name (`multi_step_on_iterator`): here
`evaluate` retraces the test function with a new batch size, and `predict` traces its own."""

import numpy as np
import tensorflow as tf

x, y = np.ones((16, 3), "float32"), np.ones((16, 2), "float32")
model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])
model.compile("sgd", "mse")
model.fit(x, y, batch_size=4, epochs=2, validation_data=(x, y), verbose=0)
model.evaluate(x, y, verbose=0)  # @evaluate (the default batch of 32: a new shape)
model.predict(x, verbose=0)
