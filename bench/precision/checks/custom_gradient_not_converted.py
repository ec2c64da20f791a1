"""TFI013: AutoGraph does not convert what `tf.custom_gradient` and `tf.recompute_grad` wrap.

    python custom_gradient_not_converted.py

TF 2.21: a `for` over `tf.range` and an `if` on a tensor in such functions raise
OperatorNotAllowedInGraphError under `tf.function` and in `Dataset.map` (all six lines).
"""

import tensorflow as tf


@tf.custom_gradient
def looped(x):
    total = tf.zeros([])
    for i in tf.range(tf.shape(x)[0]):
        total += x[i]
    return total, lambda up: up * tf.ones_like(x)

@tf.custom_gradient
def branched(x):
    y = x * 2.0 if tf.reduce_sum(x) > 0 else x
    return y, lambda up: up

def recomputed_body(x):
    if tf.reduce_sum(x) > 0:
        return x * 2.0
    return x
recomputed = tf.recompute_grad(recomputed_body)

for name, f in [("looped", looped), ("branched", branched), ("recompute", recomputed)]:
    try:
        print(name, "tf.function", tf.function(f)(tf.ones([3])).shape)
    except tf.errors.OperatorNotAllowedInGraphError as e:
        print(name, "tf.function", type(e).__name__)
    try:
        ds = tf.data.Dataset.from_tensor_slices(tf.ones([2, 3])).map(f)
        print(name, "map", next(iter(ds)).shape)
    except tf.errors.OperatorNotAllowedInGraphError as e:
        print(name, "map", type(e).__name__)
