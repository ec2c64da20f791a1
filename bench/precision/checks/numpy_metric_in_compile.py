"""Analogue of scaaml 3.0.5, metrics/custom.py:324-349 (TFI012): a keras.metrics.Metric whose update_state converts y_true/y_pred
with np.array(...) and whose result() reads its state with var.numpy() to feed a host (scipy-like) function; scipy is not installed here, numpy stands in, used as
its docstring shows (compile(metrics=[...]) then fit), standalone, and with run_eagerly=True.
Variant 'result only': update_state written with keras.ops, result() still uses .numpy()."""
import keras
import numpy as np


class NumpyUpdate(keras.metrics.Metric):
    def __init__(self, name="sig", **kw):
        super().__init__(name=name, **kw)
        self.correct = self.add_weight(name="correct", initializer="zeros")
        self.seen = self.add_weight(name="seen", initializer="zeros")

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true = np.array(y_true, dtype=np.float32)
        y_pred = np.array(y_pred, dtype=np.float32)
        self.seen.assign(self.seen + y_true.shape[0])
        self.correct.assign(self.correct + np.sum(y_true.argmax(-1) == y_pred.argmax(-1)))

    def result(self):
        k, n = self.correct.numpy(), self.seen.numpy()  # host values, as a scipy call needs
        return np.float32(1.0 - k / max(n, 1.0))


class OpsUpdate(NumpyUpdate):
    def update_state(self, y_true, y_pred, sample_weight=None):
        hit = keras.ops.cast(keras.ops.argmax(y_true, -1) == keras.ops.argmax(y_pred, -1), "float32")
        self.seen.assign(self.seen + keras.ops.cast(keras.ops.shape(y_true)[0], "float32"))
        self.correct.assign(self.correct + keras.ops.sum(hit))


def attempt(label, fn):
    try:
        out = fn()
        print(f"  {label}: ok {'' if out is None else out}")
    except Exception as e:
        lines = [line.strip() for line in str(e).strip().splitlines() if line.strip()]
        print(f"  {label}: {type(e).__name__}: {lines[0][:110]}")


x = np.random.rand(32, 4).astype("float32")
y = keras.utils.to_categorical(np.random.randint(0, 2, 32), 2)
print("keras", keras.__version__)
for cls in (NumpyUpdate, OpsUpdate):
    print(cls.__name__, "(np.array in update_state)" if cls is NumpyUpdate else "(result only uses .numpy())")
    def standalone(cls=cls):
        m = cls()
        m.update_state([[0., 1.], [1., 0.]], [[0.1, 0.9], [0.6, 0.4]])
        return float(m.result())
    attempt("standalone eager", standalone)
    for eager in (False, True):
        model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(2, activation="softmax")])
        model.compile(optimizer="sgd", loss="categorical_crossentropy", metrics=[cls()], run_eagerly=eager)
        attempt(f"compile(metrics=[...]) fit, run_eagerly={eager}",
                lambda model=model: round(model.fit(x, y, batch_size=8, verbose=0).history["sig"][0], 4))
