"""TFI008 on Keras 2 code built the TF1 way (standalone Keras 2.2.x era: a functional model whose
graph is built once, then `fit` runs it in a session): a custom layer whose `call` makes a
`Conv1D` on the spot, and a `Lambda` whose function makes a `Dense` on the spot.

tf-keras in v1 graph mode stands in for Keras 2.2 on TF1 (same design: `Model.fit` trains only
`model.trainable_weights`, gathered from the layers the functional graph knows, and
`save_weights`/`load_weights` go layer by layer). The script prints, for the custom layer:
- whether the inner Conv1D's kernel is in `model.trainable_weights` (it is not: the outer layer
  has no weights, the Conv1D is a local of `call`) and whether `fit` changes it;
- whether a second model built the same way (as a predict script does) and given the first
  model's `save_weights` file predicts the same (it does not: its inner Conv1D is new and random).
For the Lambda it prints what tf-keras does (tf-keras refuses variables made inside a Lambda;
Keras 2.2 has no such check and behaves like the custom layer).

    TF_CPP_MIN_LOG_LEVEL=2 .venv/bin/python bench/precision/checks/layer_made_in_call_of_functional_keras2_graph.py
"""

import os
import tempfile

import numpy as np
import tensorflow as tf
import tf_keras as keras

tf.compat.v1.disable_eager_execution()
K = keras.backend


class Wide(keras.layers.Layer):
    def call(self, inputs):
        return keras.layers.Conv1D(4, 3, padding="same", activation="tanh")(inputs)

    def compute_output_shape(self, input_shape):
        return input_shape[0], input_shape[1], 4


def build():
    inp = keras.Input((10, 4))
    x = Wide()(inp)
    out = keras.layers.Dense(1)(keras.layers.Flatten()(x))
    model = keras.Model(inp, out)
    model.compile(optimizer=keras.optimizers.legacy.Adam(0.05), loss="mse")
    return model


rng = np.random.default_rng(0)
x = rng.normal(size=(64, 10, 4)).astype("float32")
y = rng.normal(size=(64, 1)).astype("float32")

model = build()
inner = [v for v in tf.compat.v1.global_variables() if "conv1d" in v.name and "kernel" in v.name][0]  # noqa: RUF015
print("model.trainable_weights:", [w.name for w in model.trainable_weights])
print("inner Conv1D kernel in model.trainable_weights:",
      any(w is inner for w in model.trainable_weights))
before = K.get_value(inner).copy()
model.fit(x, y, epochs=5, verbose=0)
print("inner Conv1D kernel changed by fit:", not np.allclose(before, K.get_value(inner)))
pred_a = model.predict(x[:4])
path = os.path.join(tempfile.mkdtemp(), "w.h5")
model.save_weights(path)

rebuilt = build()
rebuilt.load_weights(path)
pred_b = rebuilt.predict(x[:4])
print("rebuilt model + load_weights predicts the same:", np.allclose(pred_a, pred_b))


def make_gate(t):
    return keras.layers.Dense(4, activation="sigmoid")(t) * t


try:
    inp = keras.Input((10, 4))
    keras.layers.TimeDistributed(keras.layers.Lambda(make_gate))(inp)
    print("Lambda making a Dense: built")
except Exception as error:
    print("Lambda making a Dense:", type(error).__name__, " ".join(str(error).split())[:160])
