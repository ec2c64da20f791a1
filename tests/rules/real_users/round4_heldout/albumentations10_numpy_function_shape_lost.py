# Real-user hazard: images are augmented with a NumPy library through tf.numpy_function in dataset.map; the traced map function cannot know the output shape, so the dataset yields tensors of unknown shape and fit fails.
# After: https://github.com/albumentations-team/albumentations_examples/pull/10 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): the batched dataset's image spec is <unknown>; fit raises ValueError: as_list() is not defined on an unknown TensorShape
import numpy as np
import tensorflow as tf


def numpy_augment(image):
    flipped = image[:, ::-1] if np.random.rand() < 0.5 else image
    return np.clip(flipped * np.random.uniform(0.8, 1.2), 0.0, 1.0).astype("float32")


def augment(image, label):
    image = tf.numpy_function(numpy_augment, [image], tf.float32)  # expect: NEW-py-function-unknown-shape
    return image, label


images = np.random.rand(16, 24, 24, 3).astype("float32")
labels = np.random.randint(0, 2, 16)
data = tf.data.Dataset.from_tensor_slices((images, labels)).map(augment).batch(4)
print("element spec:", data.element_spec[0].shape)
model = tf.keras.Sequential([
    tf.keras.layers.Conv2D(4, 3, activation="relu"),
    tf.keras.layers.GlobalAveragePooling2D(),
    tf.keras.layers.Dense(2, activation="softmax"),
])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(data, epochs=1, verbose=0)
