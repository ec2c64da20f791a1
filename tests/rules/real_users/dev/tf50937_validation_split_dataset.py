# Real-user hazard: model.fit is given a tf.data pipeline together with validation_split.
# After: https://github.com/tensorflow/tensorflow/issues/50937 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): ValueError: Argument validation_split is only supported for tensors or NumPy arrays
import numpy as np
import tensorflow as tf

images = np.random.rand(64, 8, 8, 1).astype("float32")
labels = np.random.randint(0, 2, 64)
train_ds = tf.data.Dataset.from_tensor_slices((images, labels)).shuffle(64).batch(16).prefetch(1)

model = tf.keras.Sequential([
    tf.keras.Input(shape=(8, 8, 1)),
    tf.keras.layers.Flatten(),
    tf.keras.layers.Dense(2, activation="softmax"),
])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
model.fit(train_ds, epochs=2, validation_split=0.2)  # expect: TFI011
