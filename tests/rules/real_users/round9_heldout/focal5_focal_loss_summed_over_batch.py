# Real-user hazard: a binary focal loss returns the sum of the per-element terms over the whole batch; Keras expects a per-sample loss (or a batch mean), so the reported loss and the size of every gradient step grow with the batch size.
# After: https://github.com/umbertogriffo/focal-loss-keras/issues/5 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): evaluating the same model on the same 64 samples reports focal loss 0.0714 with batch_size=1, 0.5715 with 8 and 4.572 with 64 (the batch sum), while binary_crossentropy reports 0.6022 at every batch size
import keras
import numpy as np
from keras import ops


def binary_focal_loss(gamma=2.0, alpha=0.25):
    def focal(y_true, y_pred):
        y_pred = ops.clip(y_pred, 1e-7, 1.0 - 1e-7)
        p_t = ops.where(ops.equal(y_true, 1.0), y_pred, 1.0 - y_pred)
        alpha_t = ops.where(ops.equal(y_true, 1.0), alpha, 1.0 - alpha)
        return -ops.sum(alpha_t * ops.power(1.0 - p_t, gamma) * ops.log(p_t))  # expect: NEW-batch-summed-loss

    return focal


keras.utils.set_random_seed(0)
model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(1, activation="sigmoid")])
features = np.random.rand(64, 6).astype("float32")
labels = (np.random.rand(64, 1) > 0.8).astype("float32")
for loss in (binary_focal_loss(), "binary_crossentropy"):
    model.compile(optimizer="sgd", loss=loss)
    by_size = {size: round(model.evaluate(features, labels, batch_size=size, verbose=0), 4) for size in (1, 8, 64)}
    print(getattr(loss, "__name__", loss), "loss by batch size:", by_size)
