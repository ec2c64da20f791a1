"""TFI029: does `fit` accept a dataset whose elements come from `tf.numpy_function` with no
`set_shape`?

    python py_function_unknown_shape_in_fit.py keras3|tfkeras sequential|functional|seq_input

TF 2.21: with Keras 3 all three models fail (`as_list() is not defined on an unknown
TensorShape`, or `Cannot take the length of shape with unknown rank` for the Sequential model
with an Input); with tf-keras only the Sequential model without an Input fails.
"""

import os
import sys

if sys.argv[1] == "tfkeras":
    os.environ["TF_USE_LEGACY_KERAS"] = "1"

import numpy as np
import tensorflow as tf


def brighten(image):
    return (image * 1.0).astype("float32")


def augment(image, label):
    image = tf.numpy_function(brighten, [image], tf.float32)
    return image, label


images = np.random.rand(16, 24, 24, 3).astype("float32")
labels = np.random.randint(0, 2, 16)
data = tf.data.Dataset.from_tensor_slices((images, labels)).map(augment).batch(4)
layers = tf.keras.layers
head = [layers.Conv2D(4, 3), layers.GlobalAveragePooling2D(), layers.Dense(2)]
if sys.argv[2] == "sequential":
    model = tf.keras.Sequential(head)
elif sys.argv[2] == "functional":
    inputs = tf.keras.Input((24, 24, 3))
    outputs = inputs
    for layer in head:
        outputs = layer(outputs)
    model = tf.keras.Model(inputs, outputs)
else:
    model = tf.keras.Sequential([tf.keras.Input((24, 24, 3)), *head])
model.compile(optimizer="adam",
              loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
try:
    model.fit(data, epochs=1, verbose=0)
    print(sys.argv[1:], "fit ok")
except Exception as error:
    print(sys.argv[1:], "fit", type(error).__name__, str(error)[:150].replace("\n", " "))
