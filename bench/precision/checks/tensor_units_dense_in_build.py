"""TFI041 premise (round 16 dev, poisson-cnn): a Keras 3 layer whose `build` keeps
`tf.concat(...)` on `self` and then makes `Dense(tf.reduce_prod(...) + ...)`. Keras 3 refuses a
tensor as `units` (ValueError), so the build fails before any later call reads the kept tensor.

    .venv/bin/python bench/precision/checks/tensor_units_dense_in_build.py
"""
import keras
import tensorflow as tf


class MetaKernel(keras.layers.Layer):
    def build(self, input_shape):
        self.kernel_shape = tf.concat([[3], [int(input_shape[-1])], [4]], axis=0)
        self.bias_shape = tf.constant([4])
        self.dense = keras.layers.Dense(tf.reduce_prod(self.kernel_shape) + self.bias_shape)

    def call(self, x):
        flat = self.dense(x)
        return tf.reshape(flat[:, :tf.reduce_prod(self.kernel_shape)],
                          tf.concat([[-1], self.kernel_shape], 0))


try:
    MetaKernel()(tf.ones([2, 5]))
    print("eager call ok")
except ValueError as error:
    print("eager call raised ValueError:", str(error).splitlines()[0][:120])
