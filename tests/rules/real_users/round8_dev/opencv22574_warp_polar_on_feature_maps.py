# Real-user hazard: a log-polar sampling layer resamples each feature map with OpenCV's cv2.warpPolar inside the layer's call; Keras traces call with symbolic tensors (here while building the model), and OpenCV needs NumPy arrays, so the model cannot be built.
# After: https://github.com/opencv/opencv/issues/22574 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3, opencv-python-headless 5.1.0): on a NumPy feature map the helper gives a (16, 16) log-polar map; building the model raises cv2.error: OpenCV(5.1.0) ... error: (-5:Bad argument) in function 'warpPolar' > Overload resolution failed: > - src is not a numpy array, neither a scalar > - Expected Ptr<cv::UMat> for argument 'src'
import cv2
import keras
import numpy as np
import tensorflow as tf


def log_polar(feature_map):
    height, width = feature_map.shape
    center = (width / 2, height / 2)
    return cv2.warpPolar(feature_map, (width, height), center, 0.9 * width, cv2.WARP_POLAR_LOG)  # expect: NEW-python-library-on-symbolic-tensor


class LogPolarSampling(keras.layers.Layer):
    def call(self, feature_maps):
        channels = [log_polar(feature_maps[0, :, :, c]) for c in range(feature_maps.shape[-1])]
        return tf.expand_dims(tf.stack(channels, axis=-1), 0)


print("on a NumPy feature map:", log_polar(np.random.rand(16, 16).astype("float32")).shape)
model = keras.Sequential([
    keras.Input((32, 32, 3), batch_size=1),
    keras.layers.Conv2D(4, 3, strides=2, padding="same"),
    LogPolarSampling(),
    keras.layers.GlobalAveragePooling2D(),
    keras.layers.Dense(2),
])
model.summary()
