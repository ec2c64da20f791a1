# Real-user hazard: a function slices a sequence with a bound computed from a tensor argument and then reads the slice's static length (x.shape[0]) as a number; eagerly the length is known, but in the traced graph it is None.
# After: https://github.com/tensorflow/tensorflow/issues/50255 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): called eagerly it returns 8; the tf.function version raises ValueError: None values not supported. (at the tf.constant(kept.shape[0]) line: the slice's static length is None in the graph)
import tensorflow as tf


def kept_length(sequence, cut):
    kept = sequence[: 10 - cut]
    return tf.constant(kept.shape[0])  # expect: NEW-static-shape-none


sequence = tf.random.uniform([10])
cut = tf.constant(2)
print("eager:", kept_length(sequence, cut).numpy())
print("tf.function:", tf.function(kept_length)(sequence, cut).numpy())
