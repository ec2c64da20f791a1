# Real-user hazard: a @tf.function train step fed one document of a new length per call retraces on every new shape.
# After: https://github.com/tensorflow/tensorflow/issues/38002 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): traced 31 times in 30 calls, with 'triggered tf.function retracing' warnings
import numpy as np
import tensorflow as tf

doc = tf.keras.Input(shape=(None, 4))
features = tf.keras.layers.Conv1D(8, 5, padding="same", activation="relu")(doc)
tags = tf.keras.layers.Conv1D(3, 5, padding="same", activation="softmax")(features)
tagger = tf.keras.Model(doc, tags)
xent = tf.keras.losses.SparseCategoricalCrossentropy()
opt = tf.keras.optimizers.Adam()


@tf.function
def step_fn(tokens, labels):
    with tf.GradientTape() as tape:
        loss = xent(labels, tagger(tokens))
    grads = tape.gradient(loss, tagger.trainable_variables)
    opt.apply_gradients(zip(grads, tagger.trainable_variables, strict=True))
    return loss


corpus = [np.random.rand(1, n, 4).astype("float32") for n in range(100, 130)]
for tokens in corpus:
    labels = np.random.randint(0, 3, size=tokens.shape[:2])
    step_fn(tokens, labels)  # expect: NEW-shape-retrace

print("traces:", step_fn.experimental_get_tracing_count())
