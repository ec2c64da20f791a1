# Real-user hazard: a Dataset.map function runs a NumPy step through tf.py_function and then restores the lost shape with set_shape(tf.shape(image)); set_shape needs a static shape (Python values), and the dynamic shape is a tensor of the traced map function, which cannot be iterated into dimensions.
# After: https://github.com/tensorflow/tensorflow/issues/35108 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): called eagerly it returns a (4, 4, 1) image; Dataset.map raises TypeError: Dimension value must be integer or None or have an __index__ method, got value '<tf.Tensor 'Shape:0' shape=(3,) dtype=int32>' (at the set_shape line)
import numpy as np
import tensorflow as tf


def invert(image):
    return (1.0 - image.numpy()).astype(np.float32)


def invert_keep_shape(image):
    inverted = tf.py_function(invert, [image], tf.float32)
    inverted.set_shape(tf.shape(image))  # expect: TFI034
    return inverted


images = tf.random.uniform((6, 4, 4, 1))
print("eager:", invert_keep_shape(images[0]).shape)
dataset = tf.data.Dataset.from_tensor_slices(images).map(invert_keep_shape)
print("element spec:", dataset.element_spec)
