# Real-user hazard: a sampling helper guards its edge cases (no samples, or no dimensions) with a Python if on tensors; called from a graph function that AutoGraph does not convert, the if needs a Python bool from a symbolic tensor and tracing fails (the helper works eagerly and where AutoGraph converts the caller).
# After: https://github.com/secondmind-labs/trieste/pull/792 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): eagerly and under a tf.function with AutoGraph the draws have shape (3, 2); under tf.function(autograph=False) the marked if raises OperatorNotAllowedInGraphError: Using a symbolic `tf.Tensor` as a Python `bool` is not allowed
import tensorflow as tf


def scrambled_normal_draws(count, width):
    if count == 0 or width == 0:  # expect: TFI013
        return tf.zeros([count, width])
    uniform = tf.random.stateless_uniform([count, width], seed=[4, 2], minval=1e-6, maxval=1.0 - 1e-6)
    return tf.math.ndtri(uniform)


def draw_block(count, width):
    return scrambled_normal_draws(count, width)


count, width = tf.constant(3), tf.constant(2)
print("eager:", draw_block(count, width).shape)
print("tf.function (AutoGraph on):", tf.function(draw_block)(count, width).shape)
print("tf.function (AutoGraph off):", tf.function(draw_block, autograph=False)(count, width).shape)
