# Real-user hazard: a reversible normalisation layer, called once to normalise the model's input and again to restore the output, keeps the statistics of the first call on self and reads them in the second; when Keras traces the layer's calls one by one (here to write a SavedModel checkpoint during fit) the restore call reads tensors of another graph and fails.
# After: https://github.com/zhangxjohn/Reversible-Instance-Normalization/issues/1 (pattern only; this code is ours)
# Confirmed on TF 2.21 (tf-keras): fit raises, from the ModelCheckpoint callback saving a SavedModel at the end of the epoch, InaccessibleTensorError: Exception encountered when calling layer 'reversible_scale' (type ReversibleScale). <tf.Tensor 'add:0' shape=(None, 1, 2) dtype=float32> is out of scope and cannot be used here (the same model written with Keras 3 and no SavedModel checkpoint trains without error)
import os

os.environ["TF_USE_LEGACY_KERAS"] = "1"
import tempfile

import numpy as np
import tensorflow as tf
from tensorflow import keras


class ReversibleScale(keras.layers.Layer):
    def build(self, input_shape):
        self.gain = self.add_weight(name="gain", shape=(1, input_shape[-1]), initializer="ones")

    def call(self, inputs, restore=False):
        if not restore:
            self.stats = (tf.reduce_mean(inputs, axis=1, keepdims=True), tf.math.reduce_std(inputs, axis=1, keepdims=True) + 1e-5)  # expect: TFI006
            center, spread = self.stats
            return (inputs - center) / spread * self.gain
        center, spread = self.stats
        return inputs / self.gain * spread + center


scaler = ReversibleScale()
series = keras.Input(shape=(12, 2))
normalised = scaler(series)
summary = keras.layers.LSTM(8)(normalised)
forecast = keras.layers.Reshape((1, 2))(keras.layers.Dense(2)(summary))
restored = scaler(forecast, restore=True)
model = keras.Model(series, restored)
model.compile(optimizer="adam", loss="mse")

history = np.random.rand(32, 12, 2).astype("float32")
future = np.random.rand(32, 1, 2).astype("float32")
checkpoint = keras.callbacks.ModelCheckpoint(os.path.join(tempfile.mkdtemp(), "forecaster"))
model.fit(history, future, batch_size=8, epochs=1, verbose=0, callbacks=[checkpoint])
print("fit ran")
