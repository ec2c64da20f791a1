# Real-user hazard: a QA fine-tuning loop pads each batch only to its own longest example, then feeds it to a tf.function train step.
# After: https://github.com/tensorflow/models/issues/7825 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): 20 padded batches trace train_step 19 times, with 'triggered tf.function retracing' warnings
import numpy as np
import tensorflow as tf

rng = np.random.default_rng(0)
examples = [rng.integers(1, 500, size=int(n)).astype("int32") for n in rng.integers(20, 384, size=160)]
starts = rng.integers(0, 20, size=160).astype("int32")
dataset = tf.data.Dataset.from_generator(
    lambda: zip(examples, starts, strict=True),
    output_signature=(tf.TensorSpec([None], tf.int32), tf.TensorSpec([], tf.int32)),
).padded_batch(8)

encoder = tf.keras.Sequential([tf.keras.layers.Embedding(500, 32), tf.keras.layers.Dense(1)])
optimizer = tf.keras.optimizers.Adam(1e-3)


@tf.function
def train_step(input_ids, start_positions):
    with tf.GradientTape() as tape:
        logits = tf.squeeze(encoder(input_ids), -1)
        loss = tf.reduce_mean(
            tf.keras.losses.sparse_categorical_crossentropy(start_positions, logits, from_logits=True)
        )
    grads = tape.gradient(loss, encoder.trainable_variables)
    optimizer.apply_gradients(zip(grads, encoder.trainable_variables, strict=True))
    return loss


for input_ids, start_positions in dataset:
    train_step(input_ids, start_positions)  # expect: TFI021
print("batches: 20, traces:", train_step.experimental_get_tracing_count())
