"""A text classifier (Embedding + bidirectional LSTM) trained by a custom loop on sequences of
varying length. To waste little padding, examples are sorted by length, cut into batches and
each batch is padded only to its own longest sequence; the batches are shuffled every epoch.
The `@tf.function` train step has no `input_signature`, so every new padded length is a new
trace.

Written after the TensorFlow tutorial "Text classification with an RNN"
(https://www.tensorflow.org/text/tutorials/text_classification_rnn), whose `padded_batch`
gives batches of varying length; here with a hand-written GradientTape loop (as in "Writing a
training loop from scratch") instead of `fit`. Our own code; IMDB is replaced by synthetic
token sequences whose label is whether "good" tokens outnumber "bad" ones.
"""

import numpy as np
import tensorflow as tf

VOCAB_SIZE = 1000
BATCH_SIZE = 32
EPOCHS = 2

rng = np.random.default_rng(4)


def make_example():
    length = int(rng.integers(8, 120))
    tokens = rng.integers(20, VOCAB_SIZE, size=length)
    label = int(rng.integers(0, 2))
    marks = rng.choice(length, size=max(2, length // 8), replace=False)
    tokens[marks] = rng.integers(1, 10, size=len(marks)) if label else rng.integers(10, 20, size=len(marks))
    return tokens, label


examples = [make_example() for _ in range(288)]
examples.sort(key=lambda e: len(e[0]))  # bucket by length: similar lengths share a batch

batches = []
for start in range(0, len(examples), BATCH_SIZE):
    chunk = examples[start : start + BATCH_SIZE]
    tokens = tf.keras.utils.pad_sequences([t for t, _ in chunk], padding="post")
    labels = np.array([lab for _, lab in chunk], dtype="float32")[:, None]
    batches.append((tf.constant(tokens), tf.constant(labels)))
print("batch lengths:", sorted({int(b[0].shape[1]) for b in batches}))

model = tf.keras.Sequential(
    [
        tf.keras.layers.Embedding(VOCAB_SIZE, 16, mask_zero=True),
        tf.keras.layers.Bidirectional(tf.keras.layers.LSTM(16)),
        tf.keras.layers.Dense(16, activation="relu"),
        tf.keras.layers.Dense(1),
    ]
)
optimizer = tf.keras.optimizers.Adam(1e-2)
loss_fn = tf.keras.losses.BinaryCrossentropy(from_logits=True)
accuracy = tf.keras.metrics.BinaryAccuracy(threshold=0.0)


@tf.function
def train_step(tokens, labels):
    with tf.GradientTape() as tape:
        logits = model(tokens, training=True)
        loss = loss_fn(labels, logits)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    accuracy.update_state(labels, logits)
    return loss


for epoch in range(EPOCHS):
    order = rng.permutation(len(batches))
    total = 0.0
    for i in order:
        tokens, labels = batches[i]
        total += float(train_step(tokens, labels))  # <- hazard
    print(f"epoch {epoch + 1}: loss {total / len(batches):.4f}, accuracy {float(accuracy.result()):.3f}")
    accuracy.reset_state()
