# Real-user hazard: a custom offset-sampling layer reads its batch size with int(inputs.shape[0]); eagerly that is a number, but in a functional model the batch dimension is None.
# After: https://github.com/DHZS/tf-deformable-conv-layer/issues/3 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): the eager call works ((2, 6, 6, 4)); building the functional model raises TypeError (could not infer the output shape of OffsetSampling; error encountered: int() argument must be a string, a bytes-like object or a real number, not 'NoneType')
import tensorflow as tf


class OffsetSampling(tf.keras.layers.Layer):
    def __init__(self, filters):
        super().__init__()
        self.offsets = tf.keras.layers.Conv2D(2, 3, padding="same")
        self.conv = tf.keras.layers.Conv2D(filters, 3, padding="same")

    def call(self, inputs):
        batch_size = int(inputs.shape[0])  # expect: NEW-static-shape-none
        offsets = self.offsets(inputs)
        grid = tf.tile(tf.reduce_mean(offsets, axis=-1, keepdims=True), [1, 1, 1, inputs.shape[-1]])
        shifted = tf.reshape(inputs + grid, [batch_size, inputs.shape[1], inputs.shape[2], inputs.shape[3]])
        return self.conv(shifted)


layer = OffsetSampling(4)
print("eager:", layer(tf.random.normal([2, 6, 6, 3])).shape)
images = tf.keras.Input((6, 6, 3))
model = tf.keras.Model(images, OffsetSampling(4)(images))
