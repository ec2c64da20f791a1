# Real-user hazard: a tf.data map function turns the file-name tensor into a Python string with .decode() to np.load the file.
# After: https://github.com/tensorflow/tensorflow/issues/29972 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): the function works on a bytes path; dataset.map(load_series) raises AttributeError: 'SymbolicTensor' object has no attribute 'decode'
import os
import tempfile

import numpy as np
import tensorflow as tf

folder = tempfile.mkdtemp()
paths = []
for i in range(3):
    paths.append(os.path.join(folder, f"series_{i}.npy"))
    np.save(paths[-1], np.full(16, float(i)))


def load_series(path):
    series = np.load(path.decode())  # expect: NEW-python-method-on-symbolic-tensor
    return tf.convert_to_tensor(series, tf.float32)


print("called on a bytes path:", load_series(paths[1].encode())[:3])
dataset = tf.data.Dataset.from_tensor_slices(paths).map(load_series)
print(next(iter(dataset))[:3])
