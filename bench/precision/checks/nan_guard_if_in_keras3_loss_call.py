"""TFI013 on a Loss subclass whose `call` replaces a NaN loss behind a Python
`if tf.reduce_any(tf.math.is_nan(loss)):` (multiple-annotators-segmentation 0.1.0.2, TGCE_SS).
The loss is used two ways: called directly in an eager custom loop (GradientTape, no
tf.function: the package's own trainer), and given to `compile(loss=...)` for `fit`.

Observed on TF 2.21:
  Keras 3: eager loop ok (the if is a plain Python bool of an eager tensor);
           compile+fit -> OperatorNotAllowedInGraphError (Keras 3 calls Loss.call without
           AutoGraph inside the traced train step)
  tf-keras: both ok (Keras 2's Loss.__call__ AutoGraph-converts call, the if becomes tf.cond)

    .venv/bin/python bench/precision/checks/nan_guard_if_in_keras3_loss_call.py
    TF_USE_LEGACY_KERAS=1 .venv/bin/python bench/precision/checks/nan_guard_if_in_keras3_loss_call.py
"""

import os

import numpy as np
import tensorflow as tf

keras = tf.keras
flavor = "tf-keras" if os.environ.get("TF_USE_LEGACY_KERAS") else "Keras 3"


class NanSafeMse(keras.losses.Loss):
    def call(self, y_true, y_pred):
        loss = tf.reduce_mean(tf.square(y_true - y_pred))
        if tf.reduce_any(tf.math.is_nan(loss)):
            loss = tf.where(tf.math.is_nan(loss), 1e-8, loss)
        return loss


x = np.random.normal(size=(8, 3)).astype("float32")
y = np.random.normal(size=(8, 1)).astype("float32")


def make_model():
    inputs = keras.Input((3,))
    return keras.Model(inputs, keras.layers.Dense(1)(inputs))


model = make_model()
optimizer = keras.optimizers.SGD(0.01)
loss_fn = NanSafeMse()
try:
    for _ in range(2):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables, strict=True))
    print(f"{flavor}: eager custom loop: ok, loss {float(loss):.3f}")
except Exception as error:  # what fails is the answer
    print(f"{flavor}: eager custom loop: {type(error).__name__}")

model = make_model()
model.compile(optimizer="sgd", loss=NanSafeMse())
try:
    history = model.fit(x, y, epochs=1, verbose=0)
    print(f"{flavor}: compile+fit: ok, loss {history.history['loss'][-1]:.3f}")
except Exception as error:  # what fails is the answer
    print(f"{flavor}: compile+fit: {type(error).__name__}")
