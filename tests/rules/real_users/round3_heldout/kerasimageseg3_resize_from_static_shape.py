# Real-user hazard: an FCN upsampling Lambda sizes tf.image.resize from the static x.shape; for a model with free image size those entries are None when Keras traces the Lambda.
# After: https://github.com/dhkim0225/keras-image-segmentation/issues/3 (pattern only; this code is ours)
# Confirmed on TF 2.21 (tf-keras): the function works on an eager tensor ((1, 16, 16, 2)); building the model raises TypeError: unsupported operand type(s) for *: 'NoneType' and 'int' (Keras 3: NotImplementedError, could not infer the Lambda's output shape)
import os

os.environ["TF_USE_LEGACY_KERAS"] = "1"
import tensorflow as tf


def upsample_twice(x):
    return tf.image.resize(x, (x.shape[1] * 2, x.shape[2] * 2))  # expect: NEW-static-shape-none


print("eager:", upsample_twice(tf.ones([1, 8, 8, 2])).shape)
inputs = tf.keras.Input(shape=(None, None, 3))
features = tf.keras.layers.Conv2D(2, 3, strides=2, padding="same")(inputs)
outputs = tf.keras.layers.Lambda(upsample_twice)(features)
model = tf.keras.Model(inputs, outputs)
model.summary()
