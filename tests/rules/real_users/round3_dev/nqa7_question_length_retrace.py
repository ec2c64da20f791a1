# Real-user hazard: a question-answering module's tf.function is called once per (question, context) pair, each encoded to its own token length; every new length is a new trace and memory keeps growing.
# After: https://github.com/see--/natural-question-answering/issues/7 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): 40 pairs of 26 distinct lengths trace the function 26 times, with 'triggered tf.function retracing' warnings
import numpy as np
import tensorflow as tf


class SpanScorer(tf.Module):
    def __init__(self):
        self.embed = tf.Variable(tf.random.normal([1000, 16]))
        self.head = tf.Variable(tf.random.normal([16, 2]))

    @tf.function
    def __call__(self, word_ids, mask):
        h = tf.nn.embedding_lookup(self.embed, word_ids) * tf.cast(mask[..., None], tf.float32)
        return tf.einsum("bld,dk->blk", h, self.head)


scorer = SpanScorer()
rng = np.random.default_rng(0)
for _ in range(40):
    ids = rng.integers(1, 1000, size=(1, int(rng.integers(20, 60))))
    logits = scorer(tf.constant(ids, tf.int32), tf.ones_like(ids, dtype=tf.int32))  # expect: TFI021
print("traces:", scorer.__call__.experimental_get_tracing_count())
