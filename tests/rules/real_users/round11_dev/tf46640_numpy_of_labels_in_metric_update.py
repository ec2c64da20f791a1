# Real-user hazard: a custom Keras metric converts its labels and predictions with .numpy() in update_state to score them with a plain-Python function; called by hand on eager tensors it works, but fit runs update_state inside the traced train step, where the tensors are symbolic and have no .numpy().
# After: https://github.com/tensorflow/tensorflow/issues/46640 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): update_state called by hand on eager tensors gives a score (0.42 in one run: the predictions are unseeded random numbers); fit raises AttributeError: 'SymbolicTensor' object has no attribute 'numpy' (at the .numpy() line)
import keras
import numpy as np
import tensorflow as tf


def macro_recall(truth, guess, n_classes):
    scores = []
    for c in range(n_classes):
        hits = sum(1 for t, g in zip(truth, guess, strict=True) if t == c and g == c)
        total = sum(1 for t in truth if t == c)
        scores.append(hits / total if total else 0.0)
    return sum(scores) / n_classes


class MacroRecall(keras.metrics.Metric):
    def __init__(self, n_classes, name="macro_recall", **kwargs):
        super().__init__(name=name, **kwargs)
        self.n_classes = n_classes
        self.score = self.add_weight(name="score", initializer="zeros")

    def update_state(self, y_true, y_pred, sample_weight=None):
        guess = tf.argmax(y_pred, axis=-1)
        value = macro_recall(list(y_true.numpy()), list(guess.numpy()), self.n_classes)  # expect: TFI012
        self.score.assign(value)

    def result(self):
        return self.score


rng = np.random.RandomState(1)
features = rng.normal(size=(48, 5)).astype("float32")
labels = rng.randint(0, 3, size=(48,))

metric = MacroRecall(3)
metric.update_state(tf.constant(labels[:8]), tf.random.uniform((8, 3)))
print("by hand:", float(metric.result()))

model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(3, activation="softmax")])
model.compile(optimizer="sgd", loss="sparse_categorical_crossentropy", metrics=[MacroRecall(3)])
model.fit(features, labels, batch_size=16, epochs=1, verbose=0)
print("fit done")
