# Real-user hazard: a TF model's call logs a warning under a tensor condition; in graph mode the warning fires while tracing, whatever the data.
# After: https://github.com/huggingface/transformers/issues/9285 (pattern only; this code is ours)
# Confirmed on TF 2.21 (tf-keras): predict on all-valid ids still prints the clipping warning (twice, at trace time)
import logging
import os

os.environ["TF_USE_LEGACY_KERAS"] = "1"
import numpy as np
import tensorflow as tf

logger = logging.getLogger("my_model")


class TokenEmbedder(tf.keras.layers.Layer):
    def __init__(self, vocab_size, dim, **kwargs):
        super().__init__(**kwargs)
        self.vocab_size = vocab_size
        self.embed = tf.keras.layers.Embedding(vocab_size, dim)

    def call(self, input_ids):
        if tf.reduce_any(input_ids >= self.vocab_size):
            logger.warning("Some input_ids are >= vocab_size and were clipped.")  # expect: TFI006
            input_ids = tf.minimum(input_ids, self.vocab_size - 1)
        return tf.reduce_mean(self.embed(input_ids), axis=1)


ids = tf.keras.Input(shape=(8,), dtype=tf.int32)
model = tf.keras.Model(ids, tf.keras.layers.Dense(1)(TokenEmbedder(100, 4)(ids)))
valid_ids = np.random.randint(0, 100, size=(16, 8))
model.predict(valid_ids, verbose=0)
