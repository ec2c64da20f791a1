# Real-user hazard: inference loops over the batches of a generator and calls model.predict on each one; predict sets up a whole prediction run per call, so the loop is slow and memory keeps growing.
# After: https://github.com/AllenInstitute/deepinterpolation/pull/78 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): 300 batches: ~127 ms per model.predict call against ~5 ms for model(x, training=False); max RSS 569 MB after 100 batches, 572 MB after 300 (slowly growing)
import resource
import time

import numpy as np
import tensorflow as tf

model = tf.keras.Sequential([
    tf.keras.Input((16, 16, 1)),
    tf.keras.layers.Conv2D(4, 3, padding="same", activation="relu"),
    tf.keras.layers.Conv2D(1, 3, padding="same"),
])


class FrameBatches(tf.keras.utils.PyDataset):
    def __len__(self):
        return 300

    def __getitem__(self, index):
        return np.random.rand(5, 16, 16, 1).astype("float32")


frames = FrameBatches()
start = time.time()
for index in range(len(frames)):
    denoised = model.predict(frames[index], verbose=0)  # expect: TFI023
    if index % 100 == 99:
        print(index + 1, "batches, max RSS MB:", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)
per_predict = (time.time() - start) / len(frames)
start = time.time()
for index in range(len(frames)):
    denoised = model(frames[index], training=False)
print(f"model.predict {per_predict * 1000:.1f} ms per batch, model(x) {(time.time() - start) / len(frames) * 1000:.1f} ms")
