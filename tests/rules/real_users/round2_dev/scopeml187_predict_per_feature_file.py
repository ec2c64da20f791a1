# Real-user hazard: an inference script loops over feature files and calls model.predict on each file's features.
# After: https://github.com/scope-ml/scope-ml/pull/187 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): max RSS keeps growing (+27 MB after 100 files, +32 MB after 400); ~95 ms per file with model.predict against ~0.9 ms with model(x)
import resource
import time

import numpy as np
import tensorflow as tf

model = tf.keras.Sequential([
    tf.keras.Input(shape=(20,)),
    tf.keras.layers.Dense(64, activation="relu"),
    tf.keras.layers.Dense(1, activation="sigmoid"),
])
rng = np.random.default_rng(0)
feature_files = [rng.random((int(n), 20), dtype=np.float32) for n in rng.integers(50, 400, size=400)]


def max_rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


start_rss, start = max_rss_mb(), time.perf_counter()
for i, features in enumerate(feature_files):
    scores = model.predict(features, verbose=0)  # expect: NEW-predict-in-loop
    if i % 100 == 99:
        print(f"{i + 1} files: max RSS +{max_rss_mb() - start_rss:.0f} MB")
per_predict = (time.perf_counter() - start) / len(feature_files)
start = time.perf_counter()
for features in feature_files:
    scores = model(features, training=False)
per_call = (time.perf_counter() - start) / len(feature_files)
print(f"model.predict {1000 * per_predict:.1f} ms per file, model(x) {1000 * per_call:.1f} ms per file")
