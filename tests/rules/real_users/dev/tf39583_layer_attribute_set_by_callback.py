# Real-user hazard: a callback lowers a Python float attribute of a layer during training; the traced graph keeps the old value.
# After: https://github.com/tensorflow/tensorflow/issues/39583 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): after the callback sets keep=0.25, evaluate still uses 0.5 (loss 0.25) while an eager call gives 0.0625
import numpy as np
import tensorflow as tf


class KeepFraction(tf.keras.layers.Layer):
    def __init__(self, keep=0.5, **kwargs):
        super().__init__(**kwargs)
        self.keep = keep

    def call(self, inputs):
        return inputs * self.keep  # expect: TFI003


class AnnealKeep(tf.keras.callbacks.Callback):
    def on_epoch_end(self, epoch, logs=None):
        self.model.get_layer("keep").keep = 0.25


inputs = tf.keras.Input(shape=(3,))
outputs = KeepFraction(name="keep")(tf.keras.layers.Dense(3, kernel_initializer="identity")(inputs))
model = tf.keras.Model(inputs, outputs)
model.compile(optimizer=tf.keras.optimizers.SGD(0.0), loss="mse")
x, y = np.ones((8, 3)), np.zeros((8, 3))
model.fit(x, y, epochs=2, validation_data=(x, y), callbacks=[AnnealKeep()], verbose=0)
print("evaluate loss:", model.evaluate(x, y, verbose=0))
print("eager loss:", float(np.mean(np.square(model(x).numpy()))))
