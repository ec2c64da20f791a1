# `tf` and `tf_keras` come from project modules: they are TensorFlow and Keras 2 all the same.
from pkg.keras_compat import tf_keras
from pkg.utils.tensor_utils import tf


def report_eager(x):
    print("eager", x)
    return x


def report_debug(x):
    print("debug", x)
    return x


@tf.function
def step(x, debug=False):
    callback = report_debug if debug else report_eager
    y = tf.py_function(callback, [x], tf.float32)  # the callbacks run eagerly: fine
    print("tracing", x)  # expect: TFI006
    return y


class Scale(tf_keras.layers.Layer):
    def build(self, input_shape):
        self.w = tf.Variable(1.0)  # Keras 2 tracks it: no TFI009

    def call(self, inputs):
        return inputs * self.w
