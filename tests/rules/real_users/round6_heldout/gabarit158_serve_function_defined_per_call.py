# Real-user hazard: a model wrapper's fast predict_proba defines its @tf.function serve function inside the method, so every call makes and traces a new function; the "fast" path ends up slower than model.predict, with retracing warnings.
# After: https://github.com/France-Travail/gabarit/issues/158 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): 20 calls trace 20 serve functions; 'triggered tf.function retracing' warnings from the 5th call on; ~42-45 ms per call (two runs) against ~4 ms per call with one serve function made once
import time

import keras
import numpy as np
import tensorflow as tf


class TextClassifierWrapper:
    def __init__(self, vocabulary_size, classes):
        self.model = keras.Sequential([
            keras.Input((20,)),
            keras.layers.Embedding(vocabulary_size, 8),
            keras.layers.GlobalAveragePooling1D(),
            keras.layers.Dense(classes, activation="softmax"),
        ])
        self.serve_functions = []

    def fast_predict_proba(self, token_ids):
        @tf.function
        def serve(batch):
            return self.model(batch, training=False)

        self.serve_functions.append(serve)
        return serve(tf.constant(token_ids)).numpy()  # expect: TFI014


wrapper = TextClassifierWrapper(vocabulary_size=100, classes=3)
requests = [np.random.randint(0, 100, size=(4, 20)) for _ in range(20)]
start = time.perf_counter()
for token_ids in requests:
    wrapper.fast_predict_proba(token_ids)
per_call = (time.perf_counter() - start) / len(requests) * 1000
traces = sum(f.experimental_get_tracing_count() for f in wrapper.serve_functions)
print(f"{traces} traces for {len(requests)} calls, {per_call:.1f} ms per call")

serve_once = tf.function(lambda batch: wrapper.model(batch, training=False))
start = time.perf_counter()
for token_ids in requests:
    serve_once(tf.constant(token_ids)).numpy()
print(f"one serve function: {(time.perf_counter() - start) / len(requests) * 1000:.1f} ms per call")
