# Real-user hazard: a Haar wavelet layer works out the size of its output from the static spatial dimensions of its input (ceil(height / 2), ceil(width / 2)); in a fully convolutional model whose Input leaves height and width free, those dimensions are None when Keras traces the layer, and the arithmetic fails.
# After: https://github.com/fversaci/WaveTF/issues/12 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): the layer maps a (2, 32, 32, 3) batch to (2, 16, 16, 12) and the model with Input((32, 32, 3)) builds; with Input((None, None, 3)) building it raises TypeError: unsupported operand type(s) for /: 'NoneType' and 'int'
import math

import keras
import numpy as np
import tensorflow as tf


class HaarDownsample(keras.layers.Layer):
    def call(self, batch):
        height, width = batch.shape[1], batch.shape[2]
        half_h, half_w = (math.ceil(size / 2) for size in (height, width))  # expect: NEW-static-shape-none
        padded = tf.pad(batch, [[0, 0], [0, 2 * half_h - height], [0, 2 * half_w - width], [0, 0]])
        even_rows, odd_rows = padded[:, 0::2], padded[:, 1::2]
        low, high = (even_rows + odd_rows) / 2, (even_rows - odd_rows) / 2
        bands = [low[:, :, 0::2] + low[:, :, 1::2], low[:, :, 0::2] - low[:, :, 1::2],
                 high[:, :, 0::2] + high[:, :, 1::2], high[:, :, 0::2] - high[:, :, 1::2]]
        return tf.concat(bands, axis=-1) / 2


def wavelet_model(image_shape):
    inputs = keras.Input(image_shape)
    features = HaarDownsample()(inputs)
    return keras.Model(inputs, keras.layers.Conv2D(8, 3, padding="same")(features))


images = np.random.rand(2, 32, 32, 3).astype("float32")
print("fixed size:", images.shape, "->", HaarDownsample()(images).shape)
wavelet_model((32, 32, 3))
print("free-size model:")
wavelet_model((None, None, 3))
