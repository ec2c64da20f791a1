# Real-user hazard: a recurrent model builds its initial h/c states from the static inputs.shape[0]; it runs with run_eagerly=True but not when fit traces the step with a None batch size.
# After: https://github.com/USGS-R/river-dl/pull/109 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): with run_eagerly=True fit trains (a loss is reported); the same model compiled normally raises TypeError in fit: Exception encountered when calling StreamTempModel.call(): Expected int32, but got None of type 'NoneType'
import numpy as np
import tensorflow as tf


class StreamTempModel(tf.keras.Model):
    def __init__(self, hidden_size):
        super().__init__()
        self.hidden_size = hidden_size
        self.lstm = tf.keras.layers.LSTM(hidden_size, return_sequences=True)
        self.out = tf.keras.layers.Dense(1)

    def call(self, inputs):
        batch_size = inputs.shape[0]
        h_init = tf.zeros([batch_size, self.hidden_size])  # expect: NEW-static-shape-none
        c_init = tf.zeros([batch_size, self.hidden_size])
        return self.out(self.lstm(inputs, initial_state=[h_init, c_init]))


x, y = np.random.rand(32, 10, 3).astype("float32"), np.random.rand(32, 10, 1).astype("float32")
data = tf.data.Dataset.from_tensor_slices((x, y)).batch(8)
eager_model = StreamTempModel(4)
eager_model.compile(optimizer="adam", loss="mse", run_eagerly=True)
print("run_eagerly=True loss:", eager_model.fit(data, epochs=1, verbose=0).history["loss"])
model = StreamTempModel(4)
model.compile(optimizer="adam", loss="mse")
model.fit(data, epochs=1, verbose=0)
