# Real-user hazard: a tf.data pipeline decodes each record with tf.py_function inside Dataset.map and feeds the result to Keras fit; the py_function outputs have no static shape, so the dataset's element spec is unknown and Keras 3 fit cannot build its input.
# After: https://github.com/tensorflow/tensorflow/issues/44970 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): the dataset's element spec is (TensorSpec(shape=<unknown>, ...), TensorSpec(shape=<unknown>, ...)); fit raises ValueError: Exception encountered when calling Sequential.call(). Cannot take the length of shape with unknown rank.
import keras
import numpy as np
import tensorflow as tf


def decode_record(raw, label):
    values = np.frombuffer(raw.numpy(), dtype=np.uint8).astype("float32") / 255.0
    return values[:16], np.eye(3, dtype="float32")[label.numpy()]


def parse(raw, label):
    return tf.py_function(decode_record, [raw, label], [tf.float32, tf.float32])  # expect: TFI029


rng = np.random.RandomState(4)
records = [rng.randint(0, 256, size=16, dtype=np.uint8).tobytes() for _ in range(40)]
labels = rng.randint(0, 3, size=40)
dataset = tf.data.Dataset.from_tensor_slices((records, labels)).map(parse).batch(8)
print("element spec:", dataset.element_spec)

model = keras.Sequential([keras.Input((16,)), keras.layers.Dense(3, activation="softmax")])
model.compile(optimizer="adam", loss="categorical_crossentropy")
model.fit(dataset, epochs=1, verbose=0)
print("fit done")
