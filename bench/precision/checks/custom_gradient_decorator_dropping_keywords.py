"""TFI001: a method decorator built on `tf.custom_gradient` that drops keyword arguments.

    python custom_gradient_decorator_dropping_keywords.py

The decorator takes `**kwargs` and calls the custom_gradient callable with the positional
arguments only, so the `training=` Keras passes never reaches custom_gradient. TF 2.21: `fit`
of a model with such a layer trains under tf-keras and Keras 3 (the gradient function runs),
and the same layer whose decorator forwards `**kwargs` fails under both with "The
custom_gradient decorator currently supports keywords arguments only when eager execution is
enabled".
"""

import functools
import sys

import numpy as np
import tensorflow as tf

flavor = sys.argv[1] if len(sys.argv) > 1 else "3"
if flavor == "2":
    import tf_keras as keras
else:
    import keras


def gradient_method(forward_keywords):
    def decorate(f):
        @functools.wraps(f)
        def wrapped(self, *args, **kwargs):
            if forward_keywords:
                return tf.custom_gradient(lambda *a, **kw: f(self, *a, **kw))(*args, **kwargs)
            return tf.custom_gradient(lambda *a: f(self, *a))(*args)
        return wrapped
    return decorate


def layer_class(forward_keywords):
    class Scaled(keras.layers.Layer):
        @gradient_method(forward_keywords)
        def call(self, x, training=None):
            def grad(up):
                print("gradient function ran")
                return up * 2.0
            return x * 2.0, grad
    return Scaled


for forward in (False, True):
    model = keras.Sequential([keras.layers.Dense(1), layer_class(forward)()])
    model.compile("sgd", "mse")
    try:
        model.fit(np.ones((4, 1)), np.ones((4, 1)), epochs=1, verbose=0)
        print(f"flavor {flavor}, forwards keywords {forward}: fit trained")
    except Exception as error:
        said = next((line for line in str(error).splitlines() if "currently supports" in line),
                    str(error).splitlines()[0])
        print(f"flavor {flavor}, forwards keywords {forward}: {type(error).__name__}: "
              f"{said.strip()[:120]}")
