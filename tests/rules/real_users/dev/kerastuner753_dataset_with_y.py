# Real-user hazard: features and labels are batched as two separate tf.data datasets and passed as x and y.
# After: https://github.com/keras-team/keras-tuner/issues/753 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): ValueError: When providing x as a tf.data.Dataset, y should not be passed
import numpy as np
import tensorflow as tf

frame = {"age": np.random.rand(96), "income": np.random.rand(96), "visits": np.random.rand(96)}
features_ds = tf.data.Dataset.from_tensor_slices(frame).batch(32)
labels_ds = tf.data.Dataset.from_tensor_slices(np.random.randint(0, 4, 96)).batch(32)

inputs = {name: tf.keras.Input(shape=(), name=name) for name in frame}
stacked = tf.keras.layers.Concatenate()([tf.keras.layers.Reshape((1,))(t) for t in inputs.values()])
model = tf.keras.Model(inputs, tf.keras.layers.Dense(4, activation="softmax")(stacked))
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy")
model.fit(features_ds, labels_ds, epochs=1)  # expect: TFI011
