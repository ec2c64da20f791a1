import tensorflow as tf


def normalize(x):
    # Called from a tf.function in model.py: runs in graph mode.
    return x / 2.0


def unused(x):
    return x


@tf.custom_gradient
def clip_gradient(x, scale=1.0):
    return x, lambda dy: dy * scale
