# Real-user hazard: a tf.data map function picks which augmentations to apply with Python's random.sample.
# After: https://github.com/HasnainRaz/SemSegPipeline/pull/10 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): 6 identical images come out augmented the same way in both epochs (1 distinct output per epoch, the same one): random.sample ran once, at trace time
import random

import numpy as np
import tensorflow as tf


def brighten(image):
    return image + 1.0


def flip(image):
    return image[:, ::-1]


def negate(image):
    return -image


def transpose(image):
    return tf.transpose(image)


AUGMENTATIONS = [brighten, flip, negate, transpose]


def augment(image):
    for fn in random.sample(AUGMENTATIONS, 2):  # expect: TFI017
        image = fn(image)
    return image


base = np.arange(4, dtype="float32").reshape(2, 2)
dataset = tf.data.Dataset.from_tensor_slices(np.stack([base] * 6)).map(augment)
for epoch in range(2):
    outputs = {tuple(float(v) for v in x.numpy().ravel()) for x in dataset}
    print(f"epoch {epoch}: distinct augmented outputs for 6 identical images: {len(outputs)} -> {sorted(outputs)}")
