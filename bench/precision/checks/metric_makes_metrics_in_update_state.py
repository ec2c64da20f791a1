"""A Keras 3 metric written for eager, standalone use: its `update_state` makes new Keras
metrics on every call, and with `thresholds="auto"` reads its predictions with `.numpy()`.
Under `fit` (a traced step) it fails either way: with fixed thresholds, ValueError (tf.function
only supports singleton tf.Variables created on the first call); with "auto", AttributeError
('SymbolicTensor' object has no attribute 'numpy'). Called eagerly it works: so the `.numpy()`
is one of several things that make the metric eager-only by design."""
import keras
import numpy as np
from keras import ops


class PerCallMetric(keras.metrics.Metric):
    def __init__(self, thresholds=None, name="per_call"):
        super().__init__(name=name)
        self.thresholds = thresholds if thresholds is not None else [0.5]

    def update_state(self, y_true, y_pred, sample_weight=None):
        if self.thresholds == "auto":
            self.thresholds = ops.sort(ops.reshape(y_pred, (-1,))).numpy().tolist()
        self.true_positives = keras.metrics.TruePositives(thresholds=self.thresholds)
        self.true_positives.update_state(y_true, y_pred)

    def result(self):
        return self.true_positives.result()


for thresholds in (None, "auto"):
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1, activation="sigmoid")])
    model.compile("sgd", "binary_crossentropy", metrics=[PerCallMetric(thresholds)])
    try:
        model.fit(np.random.rand(16, 3), np.random.randint(0, 2, (16, 1)), verbose=0)
        print(thresholds, "fit works")
    except (ValueError, AttributeError) as error:
        print(thresholds, type(error).__name__, str(error).splitlines()[0][:120])
metric = PerCallMetric("auto")
metric.update_state(np.array([0, 1, 1.0]), np.array([0.2, 0.7, 0.9]))
print("eagerly:", metric.result().numpy())
