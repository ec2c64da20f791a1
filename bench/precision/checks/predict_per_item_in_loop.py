"""TFI023: `model.predict` once per item of a loop, against `model(x)`: time per call, the
predict function's traces, and how much the process grew. On TF 2.21 (Keras 3): ~43 ms per
predict against ~0.8 ms per model(x) call, +29 MB over 300 predicts.

    .venv/bin/python bench/precision/checks/predict_per_item_in_loop.py
"""
import resource
import time

import numpy as np
import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input((16,)), tf.keras.layers.Dense(32, activation="relu"),
                             tf.keras.layers.Dense(1)])
rng = np.random.default_rng(0)
items = [rng.random((int(n), 16), dtype=np.float32) for n in rng.integers(1, 200, size=300)]


def rss():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


start, before = time.perf_counter(), rss()
for x in items:
    model.predict(x, verbose=0)
predict_ms = 1000 * (time.perf_counter() - start) / len(items)
print("predict traces:", model.predict_function.experimental_get_tracing_count())
grown = rss() - before
start = time.perf_counter()
for x in items:
    model(x, training=False)
call_ms = 1000 * (time.perf_counter() - start) / len(items)
print(f"predict {predict_ms:.1f} ms per call, model(x) {call_ms:.2f} ms per call, "
      f"max RSS +{grown:.0f} MB over {len(items)} predicts")
