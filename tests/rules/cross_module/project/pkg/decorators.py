import tensorflow as tf


def recompute_grad(call):
    """A bert4keras-style recompute decorator built on tf.custom_gradient."""

    @tf.custom_gradient
    def inner(self, inputs, **kwargs):
        outputs = call(self, inputs, **kwargs)

        def grad(dy, variables=None):
            return dy, [tf.zeros_like(v) for v in variables or []]

        return outputs, grad

    return inner


def traced(function):
    return tf.function(function, reduce_retracing=True)


# Bound by assignment, not `def`: only jedi follows this one.
recompute_alias = recompute_grad
