"""TFI008: a Keras layer whose `call` makes a fresh `tf.Variable(0.)` as a batch counter, adds 1
with `assign_add`, and switches behaviour (a warm-up branch) while the count is below a limit.
Trained by `fit` with `tf.config.run_functions_eagerly(True)` (every step runs `call` eagerly),
the counter is a new variable each step and reads 1 every time, so the warm-up never ends; with
the default traced train step, `fit` refuses to create a variable on a later trace.

    TF_USE_LEGACY_KERAS=1 .venv/bin/python bench/precision/checks/variable_created_in_layer_call.py
    .venv/bin/python bench/precision/checks/variable_created_in_layer_call.py
"""

import os

import numpy as np
import tensorflow as tf

keras = tf.keras
WARMUP_STEPS = 2
seen = []


class WarmupLoss(keras.layers.Layer):
    def call(self, x):
        counter = tf.Variable(0.0)
        counter = counter.assign_add(1.0)
        in_warmup = tf.cast(counter < WARMUP_STEPS + 1, tf.float32)
        if tf.executing_eagerly():
            seen.append(float(counter))
        return tf.reduce_sum(x, axis=-1, keepdims=True) * (1.0 + in_warmup)


def train(eager):
    tf.config.run_functions_eagerly(eager)
    inputs = keras.Input(shape=(3,))
    model = keras.Model(inputs, WarmupLoss()(keras.layers.Dense(3)(inputs)))
    model.compile(optimizer="sgd", loss=lambda y_true, y_pred: tf.reduce_mean(y_pred))
    seen.clear()
    x, y = np.ones((32, 3), "float32"), np.zeros((32, 1), "float32")
    try:
        model.fit(x, y, batch_size=4, epochs=1, verbose=0)
        print(f"run_functions_eagerly({eager}): counter value seen in the 8 steps: {seen}")
    except Exception as error:  # we print what happens
        lines = [ln.strip() for ln in str(error).splitlines() if "first call" in ln]
        print(f"run_functions_eagerly({eager}): fit raises", type(error).__name__,
              (lines or str(error).splitlines())[0].replace("\x1b[1m", "")[:110])


print("tf.keras is", "tf-keras (Keras 2)" if os.environ.get("TF_USE_LEGACY_KERAS") else "Keras 3")
train(eager=True)
train(eager=False)
