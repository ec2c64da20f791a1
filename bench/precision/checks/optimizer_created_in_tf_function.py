"""TFI008: an optimizer made inside a `tf.function` (alone, or made and applied).

    python optimizer_created_in_tf_function.py keras3|tfkeras

TF 2.21: both functions fail on their first call with Keras 3 and with tf-keras: `ValueError:
tf.function only supports singleton tf.Variables created on the first call`.
"""

import os
import sys

if sys.argv[1] == "tfkeras":
    os.environ["TF_USE_LEGACY_KERAS"] = "1"

import tensorflow as tf

point = tf.Variable([1.0, 2.0])


@tf.function
def only_made(target):
    tf.keras.optimizers.Adam(0.1)
    return tf.reduce_sum(point - target)


@tf.function
def made_and_applied(target):
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.square(point - target))
    grads = tape.gradient(loss, [point])
    tf.keras.optimizers.SGD(0.1).apply_gradients([(grads[0], point)])
    return loss


for function in (only_made, made_and_applied):
    try:
        function(tf.zeros([2]))
        function(tf.zeros([2]))
        print(sys.argv[1], function.__name__, "ok")
    except ValueError as error:
        print(sys.argv[1], function.__name__, str(error).strip().splitlines()[-1][:120])
