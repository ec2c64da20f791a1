# Real-user hazard: a streaming token generator is wrapped as two tf.data datasets and handed to fit as x= and y=.
# After: https://github.com/david-thrower/cerebros-core-algorithm-alpha/issues/225 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): ValueError: When providing x as a tf.data.Dataset, y should not be passed
import numpy as np
import tensorflow as tf

VOCAB, CONTEXT = 50, 8


def windows():
    tokens = np.random.randint(0, VOCAB, 400)
    for start in range(len(tokens) - CONTEXT - 1):
        yield tokens[start:start + CONTEXT], tokens[start + CONTEXT]


sig = (tf.TensorSpec([CONTEXT], tf.int64), tf.TensorSpec([], tf.int64))
pairs = tf.data.Dataset.from_generator(windows, output_signature=sig)
x_ds = pairs.map(lambda ctx, nxt: ctx).batch(32)
y_ds = pairs.map(lambda ctx, nxt: nxt).batch(32)

model = tf.keras.Sequential([
    tf.keras.Input(shape=(CONTEXT,)),
    tf.keras.layers.Embedding(VOCAB, 16),
    tf.keras.layers.GlobalAveragePooling1D(),
    tf.keras.layers.Dense(VOCAB),
])
model.compile(optimizer="adam", loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(x=x_ds, y=y_ds, epochs=1)  # expect: TFI011
