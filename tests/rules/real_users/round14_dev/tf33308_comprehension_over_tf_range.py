# Real-user hazard: a tf.function builds its list of pieces with a list comprehension over tf.range(n); AutoGraph turns for statements into graph loops but leaves comprehensions as Python, so the comprehension iterates a symbolic tensor and tracing fails (with range(n) it works).
# After: https://github.com/tensorflow/tensorflow/issues/33308 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): the eager call gives shape (2, 6, 4); the tf.function raises OperatorNotAllowedInGraphError: Iterating over a symbolic `tf.Tensor` is not allowed (at the comprehension; with range(segments.shape[1]) instead of tf.range the tf.function gives (2, 6, 4) too)
import tensorflow as tf

REPEATS = [2, 1, 3]


@tf.function
def widen_segments(segments):
    # segments: (batch, n_segments, features); segment s is repeated REPEATS[s] times
    parts = [tf.repeat(segments[:, s : s + 1, :], REPEATS[s], axis=1) for s in tf.range(segments.shape[1])]  # expect: TFI013
    return tf.concat(parts, axis=1)


segments = tf.random.uniform([2, 3, 4])
print("eager shape:", widen_segments.python_function(segments).shape)
print("tf.function shape:", widen_segments(segments).shape)
