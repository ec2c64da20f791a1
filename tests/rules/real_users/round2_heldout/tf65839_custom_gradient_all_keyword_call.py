# Real-user hazard: a tf.custom_gradient function called with keyword arguments only; its custom gradient is silently skipped.
# After: https://github.com/tensorflow/tensorflow/issues/65839 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): eager, no error: the positional call gives the custom gradient [200, 400], the keyword-only call the plain autodiff one [2, 4]
import tensorflow as tf


@tf.custom_gradient
def scaled_gap(pred, target):
    def grad(upstream):
        return upstream * 100.0 * (pred - target), -upstream * (pred - target)

    return tf.reduce_sum(tf.square(pred - target)) / 2.0, grad


pred = tf.constant([3.0, 5.0])
target = tf.constant([1.0, 1.0])
with tf.GradientTape() as tape:
    tape.watch(pred)
    positional = scaled_gap(pred, target)
print("positional call, d/dpred:", tape.gradient(positional, pred).numpy())
with tf.GradientTape() as tape:
    tape.watch(pred)
    keyword = scaled_gap(pred=pred, target=target)  # expect: NEW-custom-gradient-keyword-call
print("keyword call, d/dpred:", tape.gradient(keyword, pred).numpy())
