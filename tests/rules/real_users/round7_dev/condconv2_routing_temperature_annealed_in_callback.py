# Real-user hazard: a routing layer divides its logits by a temperature kept as a Python float on the layer, and a callback anneals it by assigning a new float to the attribute at each epoch; fit traces the layer's call once, with the first temperature baked in, so the annealing never reaches training.
# After: https://github.com/prstrive/CondConv-tensorflow/issues/2 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): the callback sets the temperature to 30, 20, 10, 1; the routing sharpness fit reports stays 0.429 in every epoch (learning rate 0: only the temperature could change it), while an eager call of the model at each epoch end gives 0.429, 0.510, 0.686, 0.964
import keras
import numpy as np


class RoutingSoftmax(keras.layers.Layer):
    def __init__(self, temperature, **kwargs):
        super().__init__(**kwargs)
        self.temperature = temperature

    def call(self, logits):
        return keras.ops.softmax(logits / self.temperature)  # expect: TFI003


class AnnealTemperature(keras.callbacks.Callback):
    def __init__(self, routing, probe):
        super().__init__()
        self.routing = routing
        self.probe = probe

    def on_epoch_begin(self, epoch, logs=None):
        self.routing.temperature = max(1.0, 30.0 - 10.0 * epoch)

    def on_epoch_end(self, epoch, logs=None):
        eager = float(np.mean(np.max(self.model(self.probe), axis=-1)))
        print(f"epoch {epoch}: temperature {self.routing.temperature:.0f}, "
              f"sharpness in fit {logs['sharpness']:.3f}, sharpness of an eager call {eager:.3f}")


def sharpness(y_true, y_pred):
    return keras.ops.mean(keras.ops.max(y_pred, axis=-1))


routing = RoutingSoftmax(temperature=30.0)
model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(4), routing])
model.compile(optimizer=keras.optimizers.SGD(learning_rate=0.0), loss="mse", metrics=[sharpness])
features = np.random.RandomState(0).normal(size=(64, 8)).astype("float32") * 20
targets = np.full((64, 4), 0.25, dtype="float32")
model.fit(features, targets, batch_size=64, epochs=4, verbose=0,
          callbacks=[AnnealTemperature(routing, features)])
