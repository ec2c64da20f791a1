# Real-user hazard: a tf.data map function draws a random integer with NumPy; it is drawn once, when the function is traced.
# After: https://github.com/tensorflow/tensorflow/issues/60848 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): every record gets the same random offset, in both epochs: np.random ran once, at trace time
import numpy as np
import tensorflow as tf

records = tf.data.Dataset.from_tensor_slices({"id": np.arange(5), "score": np.random.rand(5)})


def jitter_id(record, spread=100):
    record["id"] = record["id"] + np.random.randint(0, spread)  # expect: TFI017
    return record


records = records.map(jitter_id)
for epoch in range(2):
    print(epoch, [int(r["id"]) for r in records])
