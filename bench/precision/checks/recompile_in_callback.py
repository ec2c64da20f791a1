"""TFI028: a callback that sets `layer.trainable = True` in `on_epoch_end` and recompiles the
model there, as FineTuneCallback (deeptuner) does; run with `keras3` or `tf_keras`. On TF 2.21
both fail at the next epoch with `TypeError: 'NoneType' object is not callable` (fit's train
function is gone after the compile inside it); without the compile, the backbone never moves.

    .venv/bin/python bench/precision/checks/recompile_in_callback.py keras3
    .venv/bin/python bench/precision/checks/recompile_in_callback.py tf_keras
"""
import sys

import numpy as np

keras = __import__("tf_keras" if sys.argv[1] == "tf_keras" else "keras")
base = keras.layers.Dense(4, name="base")
base.trainable = False
model = keras.Sequential([keras.Input((3,)), base, keras.layers.Dense(1)])
model.compile(optimizer="sgd", loss="mse")


class Unfreeze(keras.callbacks.Callback):
    def __init__(self, recompile):
        super().__init__()
        self.recompile = recompile

    def on_epoch_end(self, epoch, logs=None):
        if epoch == 0:
            base.trainable = True
            if self.recompile:
                self.model.compile(optimizer=keras.optimizers.SGD(0.01), loss="mse")


for recompile in (False, True):
    before = base.get_weights()[0].copy()
    try:
        model.fit(np.random.rand(64, 3), np.random.rand(64, 1), epochs=3, verbose=0,
                  callbacks=[Unfreeze(recompile)])
        moved = not np.allclose(before, base.get_weights()[0])
        print(sys.argv[1], "recompile" if recompile else "no recompile", "base moved:", moved)
    except TypeError as error:
        print(sys.argv[1], "recompile" if recompile else "no recompile", "TypeError:", error)
    base.trainable = False
    model.compile(optimizer="sgd", loss="mse")
