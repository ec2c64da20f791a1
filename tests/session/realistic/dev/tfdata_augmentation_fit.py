"""Image classification with augmentation done in the `tf.data` pipeline: `Dataset.map` with
`tf.image` random crop, flip and brightness, then a small Sequential CNN trained with `fit`
(early stopping, a CSV log) and evaluated.

Written after the TensorFlow tutorial "Data augmentation", option "Apply augmentation with
tf.image and Dataset.map" (https://www.tensorflow.org/tutorials/images/data_augmentation).
Our own code; tf_flowers is replaced by generated 32x32 images of two kinds of shapes.
"""

import os
import tempfile

import numpy as np
import tensorflow as tf

IMG_SIZE = 32
BATCH_SIZE = 32
AUTOTUNE = tf.data.AUTOTUNE


def make_shapes(n, rng):
    """Class 0: a bright square; class 1: a bright horizontal bar; random place and colour."""
    images = rng.uniform(0, 60, size=(n, IMG_SIZE, IMG_SIZE, 3)).astype("float32")
    labels = rng.integers(0, 2, size=n).astype("int32")
    for i in range(n):
        r, c = rng.integers(4, 20, size=2)
        colour = rng.uniform(150, 255, size=3)
        if labels[i] == 0:
            images[i, r : r + 9, c : c + 9] = colour
        else:
            images[i, r + 3 : r + 6, 2:30] = colour
    return images, labels


rng = np.random.default_rng(5)
train_images, train_labels = make_shapes(320, rng)
val_images, val_labels = make_shapes(96, rng)
test_images, test_labels = make_shapes(96, rng)


def resize_and_rescale(image, label):
    image = tf.cast(image, tf.float32)
    image = tf.image.resize(image, [IMG_SIZE, IMG_SIZE])
    image = image / 255.0
    return image, label


def augment(image, label):
    image, label = resize_and_rescale(image, label)
    # Pad by 4 pixels, then take a random 32x32 crop back.
    image = tf.image.resize_with_crop_or_pad(image, IMG_SIZE + 8, IMG_SIZE + 8)
    image = tf.image.random_crop(image, size=[IMG_SIZE, IMG_SIZE, 3])
    image = tf.image.random_flip_left_right(image)
    image = tf.image.random_brightness(image, max_delta=0.1)
    image = tf.clip_by_value(image, 0, 1)
    return image, label


train_ds = (
    tf.data.Dataset.from_tensor_slices((train_images, train_labels))
    .shuffle(1000)
    .map(augment, num_parallel_calls=AUTOTUNE)
    .batch(BATCH_SIZE)
    .prefetch(AUTOTUNE)
)
val_ds = (
    tf.data.Dataset.from_tensor_slices((val_images, val_labels))
    .map(resize_and_rescale, num_parallel_calls=AUTOTUNE)
    .batch(BATCH_SIZE)
    .prefetch(AUTOTUNE)
)
test_ds = (
    tf.data.Dataset.from_tensor_slices((test_images, test_labels))
    .map(resize_and_rescale, num_parallel_calls=AUTOTUNE)
    .batch(BATCH_SIZE)
)

model = tf.keras.Sequential(
    [
        tf.keras.layers.Input(shape=(IMG_SIZE, IMG_SIZE, 3)),
        tf.keras.layers.Conv2D(16, 3, padding="same", activation="relu"),
        tf.keras.layers.MaxPooling2D(),
        tf.keras.layers.Conv2D(32, 3, padding="same", activation="relu"),
        tf.keras.layers.MaxPooling2D(),
        tf.keras.layers.Flatten(),
        tf.keras.layers.Dense(32, activation="relu"),
        tf.keras.layers.Dense(2),
    ]
)
model.compile(
    optimizer="adam",
    loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
    metrics=["accuracy"],
)

log_path = os.path.join(tempfile.mkdtemp(prefix="augment_"), "training.csv")
# patience = epochs: training is not seeded, so a smaller patience would make the number of
# epochs (and the graph-run counts in expected.toml) vary from run to run.
callbacks = [
    tf.keras.callbacks.EarlyStopping(monitor="val_accuracy", patience=5, restore_best_weights=True),
    tf.keras.callbacks.CSVLogger(log_path),
]
history = model.fit(train_ds, validation_data=val_ds, epochs=5, callbacks=callbacks, verbose=2)

loss, acc = model.evaluate(test_ds, verbose=0)
print("Accuracy", round(acc, 3))
with open(log_path) as log:
    print("logged epochs:", sum(1 for _ in log) - 1)
