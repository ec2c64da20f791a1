# Real-user hazard: a Keras metric wrapper hands the batch to a NumPy-only scorer by calling .numpy() on y_true and y_pred; it works when update_state is called eagerly, but model.fit traces update_state into the train function, where the tensors are symbolic.
# After: https://github.com/kwatcharasupat/latte/issues/19 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): calling the metric eagerly gives 1.0; model.fit raises AttributeError: 'SymbolicTensor' object has no attribute 'numpy' (in update_state)
import keras
import numpy as np
import tensorflow as tf


def rank_agreement(truth, guess):
    order_truth = np.argsort(truth, axis=0)
    order_guess = np.argsort(guess, axis=0)
    return float(np.mean(order_truth == order_guess))


class RankAgreement(keras.metrics.Metric):
    def __init__(self, name="rank_agreement"):
        super().__init__(name=name)
        self.total = self.add_weight(name="total", initializer="zeros")
        self.batches = self.add_weight(name="batches", initializer="zeros")

    def update_state(self, y_true, y_pred, sample_weight=None):
        score = rank_agreement(y_true.numpy(), y_pred.numpy())  # expect: TFI012
        self.total.assign_add(score)
        self.batches.assign_add(1.0)

    def result(self):
        return self.total / self.batches


metric = RankAgreement()
metric.update_state(tf.constant([[1.0], [2.0]]), tf.constant([[0.1], [0.3]]))
print("eager metric:", float(metric.result()))

features = np.random.rand(64, 4).astype("float32")
targets = features.sum(axis=1, keepdims=True)
model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse", metrics=[RankAgreement()])
model.fit(features, targets, batch_size=16, epochs=1, verbose=0)
