# Real-user hazard: an embedding helper calls model.predict on one image at a time inside the training loop.
# After: https://github.com/serengil/deepface/issues/697 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): max RSS keeps growing ~5 MB per 300 predict calls (+33 MB after 1200); ~60 ms per call against ~1 ms for model(x)
import resource

import numpy as np
import tensorflow as tf

model = tf.keras.Sequential([
    tf.keras.Input(shape=(64,)),
    tf.keras.layers.Dense(128, activation="relu"),
    tf.keras.layers.Dense(16),
])


def represent(img):
    return model.predict(img[None], verbose=0)[0]  # expect: NEW-predict-in-loop


start = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
for batch in range(1200):
    embedding = represent(np.random.rand(64).astype("float32"))
    if batch % 300 == 299:
        grown = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - start) / 1024
        print(f"after {batch + 1} calls: +{grown:.1f} MB")
