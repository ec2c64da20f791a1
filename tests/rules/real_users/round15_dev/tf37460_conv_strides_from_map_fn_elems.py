# Real-user hazard: a tf.function maps a convolution over a batch with tf.map_fn and takes each item's strides from the mapped elements; the strides of tf.nn.conv2d must be Python integers, and inside the traced map they are symbolic tensors, so tracing fails although the same map runs eagerly.
# After: https://github.com/tensorflow/tensorflow/issues/37460 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): the eager call gives shape (6, 5, 5, 2); the tf.function raises OperatorNotAllowedInGraphError: Iterating over a symbolic `tf.Tensor` is not allowed (at the conv2d line: in the traced map the strides are a symbolic tensor)
import tensorflow as tf


def per_item_conv(images, kernels, strides):
    def conv_one(item):
        image, kernel, stride = item
        return tf.nn.conv2d(image[None], kernel, stride, "VALID")[0]  # expect: TFI034

    return tf.map_fn(conv_one, (images, kernels, strides), fn_output_signature=tf.float32)


images = tf.random.uniform((6, 12, 12, 3))
kernels = tf.random.uniform((6, 3, 3, 3, 2))
strides = tf.tile(tf.constant([[2, 2]]), [6, 1])
print("eager:", per_item_conv(images, kernels, strides).shape)
print("tf.function:", tf.function(per_item_conv)(images, kernels, strides).shape)
