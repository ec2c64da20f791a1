"""TFI012 (silabs-mltk==0.20.0 mltk/core/preprocess/utils/audio.py:54/58, image.py:35): a file
reader ends with `if as_numpy: return x.numpy()`. Its graph caller, a `Dataset.map` lambda,
passes `as_numpy=False`, a Python constant, so the `.numpy()` branch is skipped while the map
function is traced; the NumPy result is used only by eager callers, e.g. a batch callback run
through `tf.numpy_function` (there the path is a NumPy bytes value and the tensors are eager).
Prints what each route gives, then what a map with the flag left on does.

    .venv/bin/python bench/precision/checks/numpy_flag_off_in_dataset_map.py
"""

import os
import tempfile

import numpy as np
import tensorflow as tf


def load_wav(path, as_numpy=True, with_rate=False):
    audio, rate = tf.audio.decode_wav(tf.io.read_file(path), desired_channels=1)
    audio = audio[:, 0]
    if as_numpy:
        audio = audio.numpy()
    if with_rate:
        if as_numpy:
            rate = int(rate.numpy())
        return audio, rate
    return audio


folder = tempfile.mkdtemp()
paths = []
for i in range(3):
    path = os.path.join(folder, f"{i}.wav")
    tf.io.write_file(path, tf.audio.encode_wav(tf.fill([160, 1], 0.1 * i), 16000))
    paths.append(path)

# graph route: the map lambda passes the flag off, as a Python constant
ds = tf.data.Dataset.from_tensor_slices(paths).map(
    lambda p: load_wav(p, as_numpy=False, with_rate=True)
)
print("Dataset.map with as_numpy=False:", [(a.shape, int(r)) for a, r in ds])


# eager route: a batch callback run through tf.numpy_function keeps the default as_numpy=True
def callback(batch):
    return np.stack([load_wav(p, with_rate=True)[0] for p in batch])


mapped = (
    tf.data.Dataset.from_tensor_slices(paths)
    .batch(3)
    .map(lambda b: tf.numpy_function(callback, [b], tf.float32))
)
print("tf.numpy_function callback with as_numpy=True:", [x.shape for x in mapped])

# what the rule describes: the flag left on inside the map
try:
    list(tf.data.Dataset.from_tensor_slices(paths).map(lambda p: load_wav(p)))
except Exception as error:
    print(
        "Dataset.map with as_numpy=True raises",
        type(error).__name__,
        str(error).strip().splitlines()[-1].strip()[:90],
    )
