# Real-user hazard: a loss anneals one of its terms by the current epoch, which it reads from a Python attribute that a callback sets in on_epoch_begin; fit traces the loss once, so the epoch it read at that trace (0) stays in the graph and the annealing weight never moves.
# After: https://github.com/ai2es/miles-guess/pull/5 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): with the learning rate at 0 the loss should grow with the epoch (9.0, 29.25, 49.5, 69.75, 90.0 with run_eagerly=True); fit logs 9.0 for all 5 epochs while the tracker ends at epoch 4 (the traced loss kept this_epoch = 0)
import keras
import numpy as np


class EpochTracker(keras.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.this_epoch = 0

    def on_epoch_begin(self, epoch, logs=None):
        self.this_epoch = epoch


class AnnealedSquaredError(keras.losses.Loss):
    def __init__(self, tracker, ramp_epochs=4):
        super().__init__()
        self.tracker = tracker
        self.ramp_epochs = ramp_epochs

    def call(self, y_true, y_pred):
        weight = min(1.0, self.tracker.this_epoch / self.ramp_epochs)  # expect: TFI003
        squared = keras.ops.mean(keras.ops.square(y_true - y_pred), axis=-1)
        return squared * (1.0 + 9.0 * weight)


tracker = EpochTracker()
model = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(1, kernel_initializer="ones")])
model.compile(optimizer=keras.optimizers.SGD(learning_rate=0.0), loss=AnnealedSquaredError(tracker))
history = model.fit(np.ones((8, 3)), np.zeros((8, 1)), batch_size=4, epochs=5, verbose=0, callbacks=[tracker])
print("epoch seen by the tracker at the end:", tracker.this_epoch)
print("loss per epoch (the weights do not change):", [round(v, 3) for v in history.history["loss"]])
