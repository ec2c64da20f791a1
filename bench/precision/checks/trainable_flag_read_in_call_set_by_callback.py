"""TFI028: a layer whose `call` updates running statistics only `if training and self.trainable`,
and a callback that sets `trainable = False` in `on_epoch_end` to freeze them, as abismal's
StandardizationFreezer does; run with `keras3` or `tf_keras`. fit traces its train function once,
with `self.trainable` read as True, so the statistics keep moving after the freeze.

    .venv/bin/python bench/precision/checks/trainable_flag_read_in_call_set_by_callback.py tf_keras
    .venv/bin/python bench/precision/checks/trainable_flag_read_in_call_set_by_callback.py keras3
"""
import sys

import numpy as np
import tensorflow as tf

keras = __import__("tf_keras" if sys.argv[1] == "tf_keras" else "keras")


class RunningCount(keras.layers.Layer):
    def build(self, shape):
        self.moves = self.add_weight(name="moves", shape=(), initializer="zeros",
                                       trainable=False)

    def call(self, x, training=None):
        if training and self.trainable:
            self.moves.assign_add(1.0)
        return x


class Freeze(keras.callbacks.Callback):
    def on_epoch_end(self, epoch, logs=None):
        self.model.layers[0].trainable = False


count = RunningCount()
model = keras.Sequential([keras.Input((3,)), count, keras.layers.Dense(1)])
model.compile(optimizer="sgd", loss="mse")
model.fit(np.random.rand(32, 3), np.random.rand(32, 1), batch_size=8, epochs=3, verbose=0,
          callbacks=[Freeze()])
# 4 batches per epoch: frozen after epoch 1 means 4 moves; 12 means the freeze did nothing
print(sys.argv[1], "moves:", float(tf.convert_to_tensor(count.moves)))
