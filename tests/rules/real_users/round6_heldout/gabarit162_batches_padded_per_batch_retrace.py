# Real-user hazard: an API serves a text classifier through a tf.function predict helper and pads each request batch to its own longest text; every new padded length is a new input shape, so the helper retraces again and again and the process keeps growing.
# After: https://github.com/France-Travail/gabarit/pull/162 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): 150 batches of 4 texts of 1-120 tokens: classify traced 35 times after 50 batches, 60 after 150 ('triggered tf.function retracing' warnings); max RSS 579 MB after 50 batches, 588 MB after 150
import resource

import keras
import numpy as np
import tensorflow as tf

classifier = keras.Sequential([
    keras.Input((None,)),
    keras.layers.Embedding(500, 16),
    keras.layers.GlobalAveragePooling1D(),
    keras.layers.Dense(4, activation="softmax"),
])


@tf.function
def classify(token_batch):
    return classifier(token_batch, training=False)


rng = np.random.default_rng(7)
for request in range(1, 151):
    texts = [rng.integers(1, 500, size=rng.integers(1, 121)).tolist() for _ in range(4)]
    padded = keras.utils.pad_sequences(texts, padding="post")
    probabilities = classify(tf.constant(padded))  # expect: TFI021
    if request % 50 == 0:
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"{request} batches: {classify.experimental_get_tracing_count()} traces, max RSS {rss:.0f} MB")
