# Real-user hazard: a custom layer's call runs NumPy code through tf.numpy_function; TensorFlow cannot know the shape of what the Python function returns, so the layer's output in the functional model has no static shape and the next layer cannot be built.
# After: https://github.com/tensorflow/tensorflow/issues/59726 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): called eagerly the layer gives [[0.924 -1.990 1.999]]; applied to the keras.Input it raises ValueError: Exception encountered when calling NumpyClip.call(). Could not automatically infer the output shape / dtype of 'numpy_clip_1' (of type NumpyClip) ... as_list() is not defined on an unknown TensorShape.
import keras
import numpy as np
import tensorflow as tf


def smooth_clip(values):
    return (np.tanh(values) * 2.0).astype(np.float32)


class NumpyClip(keras.layers.Layer):
    def call(self, inputs):
        return tf.numpy_function(smooth_clip, [inputs], tf.float32)  # expect: NEW-py-function-unknown-shape-in-layer


print("eager:", NumpyClip()(tf.constant([[0.5, -3.0, 4.0]])).numpy())

inputs = keras.Input(shape=(3,))
clipped = NumpyClip()(inputs)
print("clipped:", clipped.shape)
outputs = keras.layers.Dense(1)(clipped)
model = keras.Model(inputs, outputs)
print("model built")
