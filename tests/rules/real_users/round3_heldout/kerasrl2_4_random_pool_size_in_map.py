# Real-user hazard: a blur augmentation in dataset.map draws its pooling window size with tf.random and passes that tensor as avg_pool2d's ksize, which must be known when the graph is built.
# After: https://github.com/inarikami/keras-rl2/issues/4 (comment of 2020-05-14; pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): the function works eagerly ((16, 16, 3)); dataset.map(add_blurred_noise) raises OperatorNotAllowedInGraphError: Iterating over a symbolic `tf.Tensor` is not allowed (inside avg_pool2d's ksize handling)
import numpy as np
import tensorflow as tf


def add_blurred_noise(image):
    kernel_size = tf.random.uniform((1,), 3, 8, dtype=tf.int32)
    noise = tf.random.normal((1, 16, 16, 3))
    noise = tf.nn.avg_pool2d(noise, kernel_size, 1, "SAME")  # expect: NEW-tensor-as-static-op-argument
    return image + tf.squeeze(noise, axis=0)


print("eager:", add_blurred_noise(tf.zeros([16, 16, 3])).shape)
images = tf.data.Dataset.from_tensor_slices(np.zeros((4, 16, 16, 3), "float32"))
noisy = images.map(add_blurred_noise)
print(next(iter(noisy)).shape)
