"""A clean run: a Sequential model fit on a mapped, augmented dataset with validation data,
then evaluated. No hazard: nothing may be reported as a retrace or a verdict."""

import numpy as np
import tensorflow as tf

features = np.random.rand(64, 8).astype("float32")
labels = np.random.randint(0, 2, (64, 1)).astype("float32")


def augment(x, y):
    return x + tf.random.normal(tf.shape(x), stddev=0.01), y


train = tf.data.Dataset.from_tensor_slices((features, labels)).map(augment).batch(16)
valid = tf.data.Dataset.from_tensor_slices((features, labels)).batch(16)
model = tf.keras.Sequential([
    tf.keras.Input((8,)),
    tf.keras.layers.Dense(16, activation="relu"),
    tf.keras.layers.Dense(1, activation="sigmoid"),
])
model.compile("adam", "binary_crossentropy")
model.fit(train, validation_data=valid, epochs=3, verbose=0)  # 3 × 4 train steps
model.evaluate(valid, verbose=0)  # 3 × 4 validation steps + 4
