# Real-user hazard: to give each worker its own reproducible noise, a tf.function seeds TensorFlow's global generator with the worker id it receives as a tensor; tf.random.set_seed needs a Python int, known when the graph is built, so the random op that follows fails while tracing.
# After: https://github.com/tensorflow/tensorflow/issues/58433 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): called eagerly with tf.constant(1) it returns [-1.1012 1.5458 0.3836]; the tf.function version raises OperatorNotAllowedInGraphError: Using a symbolic `tf.Tensor` as a Python `bool` is not allowed (raised at the tf.random.normal line, which reads the tensor seed)
import tensorflow as tf


def worker_noise(worker_id):
    tf.random.set_seed(worker_id)  # expect: NEW-tensor-as-static-op-argument
    return tf.random.normal((3,))


print("eager, worker 1:", worker_noise(tf.constant(1)).numpy())
print("tf.function, worker 1:", tf.function(worker_noise)(tf.constant(1)).numpy())
