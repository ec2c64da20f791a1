# Real-user hazard: a partial-convolution layer builds the all-ones window count with K.ones(K.shape(coverage)) inside call; the backend's ones creates its tensor outside the graph being traced, so a graph tensor (the dynamic shape) leaks out of the function that Keras traces.
# After: https://github.com/ezavarygin/PConv2D_Keras/issues/2 (pattern only; this code is ours)
# Confirmed on TF 2.21 (tf-keras): the eager call maps a (2, 6, 6, 2) image and mask to (2, 6, 6, 4); building the functional model raises TypeError: <tf.Tensor 'partial_conv_1/Shape:0' shape=(4,) dtype=int32> is out of scope and cannot be used here (defined in the layer's scratch graph)
import os

os.environ["TF_USE_LEGACY_KERAS"] = "1"
import numpy as np
import tensorflow as tf
from tensorflow.keras import backend as K


class PartialConv(tf.keras.layers.Layer):
    def __init__(self, filters, **kwargs):
        super().__init__(**kwargs)
        self.filters = filters

    def build(self, input_shape):
        channels = input_shape[0][-1]
        self.kernel = self.add_weight(name="kernel", shape=(3, 3, channels, self.filters))
        self.window = tf.ones((3, 3, channels, self.filters))

    def call(self, inputs):
        image, mask = inputs
        features = K.conv2d(image * mask, self.kernel, padding="same")
        coverage = K.conv2d(mask, self.window, padding="same")
        full = 9.0 * image.shape[-1] * K.ones(K.shape(coverage))  # expect: TFI008
        return features * full / K.clip(coverage, 1.0, None)


images = np.random.RandomState(0).rand(8, 6, 6, 2).astype("float32")
masks = (np.random.RandomState(1).rand(8, 6, 6, 2) > 0.3).astype("float32")
print("eager call:", PartialConv(4)([images[:2], masks[:2]]).shape)
image_in = tf.keras.Input((6, 6, 2))
mask_in = tf.keras.Input((6, 6, 2))
model = tf.keras.Model([image_in, mask_in], PartialConv(4)([image_in, mask_in]))
model.compile(optimizer="adam", loss="mse")
model.fit([images, masks], np.zeros((8, 6, 6, 4)), epochs=1, verbose=0)
print("fit done")
