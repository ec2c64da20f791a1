"""TFI032: an optimizer applied only under a Python flag of a tf.function, first called with the
flag off.

    python variables_created_on_retrace.py keras3|tfkeras eval_first|train_first

TF 2.21: `eval_first` raises ValueError: Creating variables on a non-first call to a function
decorated with tf.function (Keras 3 and tf-keras); `train_first` runs.
"""

import os
import sys

if sys.argv[1] == "tfkeras":
    os.environ["TF_USE_LEGACY_KERAS"] = "1"

import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(1)])
optimizer = tf.keras.optimizers.Adam()

@tf.function
def step(x, y, apply_update):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x) - y))
    if apply_update:
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables, strict=True))
    return loss

x, y = tf.ones([8, 4]), tf.zeros([8, 1])
order = [False, True] if sys.argv[2] == "eval_first" else [True, False]
try:
    for flag in order:
        step(x, y, flag)
    print(sys.argv[1:], "ok")
except ValueError as e:
    print(sys.argv[1:], "ValueError", str(e).strip().splitlines()[0][:90])
