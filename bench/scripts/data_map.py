"""A `tf.data` pipeline with a `map` augmentation, consumed by a `tf.function` step."""

import numpy as np
import tensorflow as tf

keras = tf.keras
images = np.random.default_rng(0).uniform(size=(2048, 16, 16, 3)).astype("float32")
labels = np.random.default_rng(1).integers(0, 4, size=2048)


def augment(image, label):
    image = tf.image.random_flip_left_right(image)
    image = tf.image.random_brightness(image, 0.1)
    return tf.clip_by_value(image, 0.0, 1.0), label


dataset = (tf.data.Dataset.from_tensor_slices((images, labels))
           .map(augment, num_parallel_calls=2).batch(16).repeat(4))
model = keras.Sequential([keras.Input((16, 16, 3)), keras.layers.Conv2D(8, 3, activation="relu"),
                          keras.layers.GlobalAveragePooling2D(), keras.layers.Dense(4)])
model.compile(optimizer="adam",
              loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(dataset, epochs=1, verbose=0)
print("done")
