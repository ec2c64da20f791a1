import tensorflow as tf


def recompute(call):  # @decorator-def
    """A remat helper in another module: `tf.recompute_grad` underneath."""
    return tf.recompute_grad(call)  # @built-on
