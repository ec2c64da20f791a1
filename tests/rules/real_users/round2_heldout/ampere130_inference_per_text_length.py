# Real-user hazard: a text model's tf.function is run on each question tokenized without padding, so every new length is a new input shape.
# After: https://github.com/AmpereComputingAI/ampere_model_library/pull/130 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): 40 questions of 27 distinct lengths trace answer_logits 27 times, with 'triggered tf.function retracing' warnings
import numpy as np
import tensorflow as tf

VOCAB = 1000
encoder = tf.keras.Sequential([
    tf.keras.Input(shape=(None,), dtype="int32"),
    tf.keras.layers.Embedding(VOCAB, 16),
    tf.keras.layers.GlobalAveragePooling1D(),
    tf.keras.layers.Dense(2),
])


@tf.function
def answer_logits(token_ids):
    return encoder(token_ids, training=False)


def tokenize(text):
    return np.array([[hash(word) % VOCAB for word in text.split()]], dtype="int32")


rng = np.random.default_rng(0)
questions = [" ".join(["word"] * int(n)) for n in rng.integers(5, 60, size=40)]
for question in questions:
    answer_logits(tokenize(question))  # expect: TFI021
print("distinct lengths:", len({len(q.split()) for q in questions}), "traces:", answer_logits.experimental_get_tracing_count())
