"""TFI012 on NumPy post-processing inside a Keras model's sub-layers (tf2cv 0.0.18 findings:
HeatmapMaxDetBlock, CenterNetHeatmapBlock, CenterNetHeatmapMaxDet). A head layer calls
`x.numpy()` and decodes with NumPy. Three subclassed models use it:

- Guarded: `if self.raw or not tf.executing_eagerly(): return h` before the head, so graph
  mode (predict, tf.function) returns the raw map and only eager calls reach `.numpy()`;
- OrGuard: `if not self.raw or not tf.executing_eagerly(): h = head(h)`, i.e. graph mode
  always runs the NumPy head;
- InlineNms: `h * (pool(h).numpy() == h.numpy())` in a sub-layer's call, with no guard.

Observed on TF 2.21, the same under tf-keras and Keras 3: all three work eagerly; in predict
and tf.function, Guarded returns the raw map, OrGuard and InlineNms raise AttributeError
('SymbolicTensor' object has no attribute 'numpy').

    .venv/bin/python bench/precision/checks/eager_only_numpy_head_in_model_call.py
    TF_USE_LEGACY_KERAS=1 .venv/bin/python bench/precision/checks/eager_only_numpy_head_in_model_call.py
"""

import os
import warnings

import numpy as np
import tensorflow as tf

keras = tf.keras
warnings.filterwarnings("ignore", category=UserWarning)
flavor = "tf-keras" if os.environ.get("TF_USE_LEGACY_KERAS") else "Keras 3"


class NumpyArgmaxHead(keras.layers.Layer):
    def call(self, x):
        values = x.numpy()
        return tf.convert_to_tensor(np.argmax(values, axis=-1).astype("float32"))


class NumpyNms(keras.layers.Layer):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.pool = keras.layers.MaxPooling1D(3, strides=1, padding="same")

    def call(self, x):
        y = self.pool(x)
        return x * (y.numpy() == x.numpy())


class Guarded(keras.Model):
    def __init__(self, raw=False):
        super().__init__()
        self.raw = raw
        self.body = keras.layers.Dense(4)
        self.head = NumpyArgmaxHead()

    def call(self, x):
        h = self.body(x)
        if self.raw or not tf.executing_eagerly():
            return h
        return self.head(h)


class OrGuard(Guarded):
    def call(self, x):
        h = self.body(x)
        if not self.raw or not tf.executing_eagerly():
            h = self.head(h)
        return h


class InlineNms(keras.Model):
    def __init__(self):
        super().__init__()
        self.body = keras.layers.Dense(4)
        self.nms = NumpyNms()

    def call(self, x):
        return self.nms(self.body(x))


x = np.random.normal(size=(2, 5, 3)).astype("float32")
for make in (Guarded, OrGuard, InlineNms):
    name = make.__name__
    for mode in ("eager", "predict", "tf.function"):
        model = make()
        try:
            if mode == "eager":
                out = model(tf.constant(x))
            elif mode == "predict":
                out = model.predict(x, verbose=0)
            else:
                out = tf.function(lambda t: model(t))(tf.constant(x))  # noqa: B023
            print(f"{flavor}: {name} {mode}: ok, output shape {tuple(out.shape)}")
        except Exception as error:  # what fails is the answer
            text = [line for line in str(error).splitlines() if "no attribute" in line]
            print(f"{flavor}: {name} {mode}: {type(error).__name__}: "
                  f"{(text[-1].strip() if text else str(error).splitlines()[0])[:100]}")
