# Real-user hazard: a detection augmentation draws a random flip decision with tf.random and reads it back with .numpy() to branch in Python.
# After: https://github.com/srihari-humbarwadi/YOLOv1-TensorFlow2.0/issues/1 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): the eager call works; dataset.map(random_flip) raises AttributeError: 'SymbolicTensor' object has no attribute 'numpy'
import numpy as np
import tensorflow as tf


def random_flip(image, boxes):
    flip = tf.cast(tf.random.uniform([1], 0, 2, dtype=tf.int32), tf.bool).numpy()[0]  # expect: TFI012
    if flip:
        image = tf.image.flip_left_right(image)
        boxes = tf.stack([1.0 - boxes[:, 2], boxes[:, 1], 1.0 - boxes[:, 0], boxes[:, 3]], axis=-1)
    return image, boxes


images = np.random.rand(4, 32, 32, 3).astype("float32")
boxes = np.tile(np.array([[0.1, 0.2, 0.4, 0.6]], dtype="float32"), (4, 1, 1))
print("eager call works:", random_flip(images[0], boxes[0])[1].shape)
dataset = tf.data.Dataset.from_tensor_slices((images, boxes)).map(random_flip)
print(next(iter(dataset))[1])
