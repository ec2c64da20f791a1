# Real-user hazard: a training step compiled with XLA (tf.function(jit_compile=True)) computes a term of its loss in Python through tf.py_function; XLA cannot compile the Python call, so the step that runs without jit_compile fails once it is compiled.
# After: https://github.com/tensorflow/tensorflow/issues/51493 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): the step as a tf.function returns loss 1.875; the same step with jit_compile=True raises InvalidArgumentError: Detected unsupported operations when trying to compile graph ... on XLA_CPU_JIT: EagerPyFunc (No registered 'EagerPyFunc' OpKernel for XLA_CPU_JIT devices ...), the op created at the tf.py_function line
import numpy as np
import tensorflow as tf

weights = tf.Variable(tf.ones((2, 3)))
optimizer = tf.keras.optimizers.SGD(0.1)


def robust_scale(target):
    return np.float32(np.median(np.abs(target.numpy())) + 1.0)


def step(features, target):
    scale = tf.py_function(robust_scale, [target], tf.float32)  # expect: NEW-py-function-under-xla
    with tf.GradientTape() as tape:
        output = tf.matmul(features, weights)
        loss = tf.reduce_mean(tf.square(target - output)) / scale
    optimizer.apply_gradients([(tape.gradient(loss, weights), weights)])
    return loss


features = tf.constant([[1.0, 2.0]])
target = tf.constant([[0.5, 1.0, 2.0]])
print("tf.function:", float(tf.function(step)(features, target)))
print("tf.function(jit_compile=True):", float(tf.function(step, jit_compile=True)(features, target)))
