# Real-user hazard: a stateful metric counts the samples it has seen with float(y_true.shape[0]); fit runs update_state in the traced step, where the batch dimension of a batched dataset is unknown (None), so float() fails (the same update works on eager tensors).
# After: https://github.com/keras-team/keras/issues/15932 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): the eager update counts 5.0; fit on the batched dataset raises, at the marked line, TypeError: float() argument must be a string or a real number, not 'NoneType'
import keras
import numpy as np
import tensorflow as tf


class SeenSamples(keras.metrics.Metric):
    def __init__(self, name="seen_samples", **kwargs):
        super().__init__(name=name, **kwargs)
        self.count = self.add_variable(shape=(), initializer="zeros", name="count")

    def update_state(self, y_true, y_pred, sample_weight=None):
        self.count.assign_add(float(y_true.shape[0]))  # expect: TFI026

    def result(self):
        return self.count


seen = SeenSamples()
seen.update_state(np.zeros((5, 1)), np.zeros((5, 1)))
print("eager count:", float(seen.result()))

model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(1)])
model.compile(optimizer="sgd", loss="mse", metrics=[SeenSamples()])
pairs = tf.data.Dataset.from_tensor_slices((np.ones((20, 4), "float32"), np.ones((20, 1), "float32"))).batch(8)
history = model.fit(pairs, epochs=1, verbose=0)
print("samples counted in fit:", history.history["seen_samples"])
