# Real-user hazard: a callback reads a layer's add_loss penalty from layer.losses after fit has traced the model; it holds the symbolic tensor of the trace, not a value.
# After: https://github.com/ageron/handson-ml2/issues/181 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): at the end of epoch 0 layer.losses[0] is Tensor("sequential_1/sparse_code_1/mul:0", ...) and float() of it raises TypeError: float() argument must be ... not 'SymbolicTensor'
import numpy as np
import tensorflow as tf


class SparseCode(tf.keras.layers.Layer):
    def call(self, x):
        self.add_loss(0.01 * tf.reduce_mean(tf.abs(x)))
        return x


class ShowPenalty(tf.keras.callbacks.Callback):
    def on_epoch_end(self, epoch, logs=None):
        penalty = self.model.layers[1].losses[0]  # expect: NEW-traced-tensor-used-after-trace
        print("epoch", epoch, "penalty tensor:", penalty)
        print("penalty value:", float(penalty))


model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(8), SparseCode(), tf.keras.layers.Dense(1)])
model.compile(optimizer="sgd", loss="mse")
model.fit(np.random.rand(32, 4), np.random.rand(32, 1), epochs=2, verbose=0, callbacks=[ShowPenalty()])
