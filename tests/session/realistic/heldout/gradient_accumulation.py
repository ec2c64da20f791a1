"""Gradient accumulation in a custom loop: micro-batches of 16 add their gradients into
non-trainable `tf.Variable` accumulators inside one `@tf.function`, and every 4 micro-batches a
second `@tf.function` applies the averaged gradients and zeroes the accumulators.

Written after the accumulator pattern of the Stack Overflow question "How to accumulate
gradients in tensorflow?" (https://stackoverflow.com/questions/46772685/how-to-accumulate-gradients-in-tensorflow),
TF1 graph code (accumulator variables, an accumulate op, an apply op, zero ops), carried to TF2
with GradientTape. Our own code and data (a 4-class Gaussian-blob classification).
"""

import numpy as np
import tensorflow as tf

MICRO_BATCH = 16
ACCUM_STEPS = 4  # effective batch: 64
EPOCHS = 4

rng = np.random.default_rng(21)
centers = rng.normal(0, 3, size=(4, 8))
labels = rng.integers(0, 4, size=512)
features = (centers[labels] + rng.normal(0, 1.5, size=(512, 8))).astype("float32")

dataset = (
    tf.data.Dataset.from_tensor_slices((features, labels.astype("int32")))
    .shuffle(512, seed=0)
    .batch(MICRO_BATCH, drop_remainder=True)
)

model = tf.keras.Sequential(
    [
        tf.keras.layers.Input(shape=(8,)),
        tf.keras.layers.Dense(64, activation="relu"),
        tf.keras.layers.BatchNormalization(),
        tf.keras.layers.Dense(4),
    ]
)
optimizer = tf.keras.optimizers.Adam(learning_rate=1e-2)
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
train_accuracy = tf.keras.metrics.SparseCategoricalAccuracy()

# One accumulator per trainable variable, created once, outside any tf.function.
accumulators = [
    tf.Variable(tf.zeros(v.shape, dtype=v.dtype), trainable=False) for v in model.trainable_variables
]
accumulated_batches = tf.Variable(0.0, trainable=False)


@tf.function
def accumulate_step(x, y):
    with tf.GradientTape() as tape:
        logits = model(x, training=True)
        loss = loss_fn(y, logits)
    grads = tape.gradient(loss, model.trainable_variables)
    for acc, grad in zip(accumulators, grads):
        acc.assign_add(grad)
    accumulated_batches.assign_add(1.0)
    train_accuracy.update_state(y, logits)
    return loss


@tf.function
def apply_accumulated():
    averaged = [acc / accumulated_batches for acc in accumulators]
    optimizer.apply_gradients(zip(averaged, model.trainable_variables))
    for acc in accumulators:
        acc.assign(tf.zeros_like(acc))
    accumulated_batches.assign(0.0)


for epoch in range(EPOCHS):
    epoch_loss = []
    for step, (x_batch, y_batch) in enumerate(dataset):
        epoch_loss.append(accumulate_step(x_batch, y_batch))
        if (step + 1) % ACCUM_STEPS == 0:
            apply_accumulated()
    print(
        f"epoch {epoch + 1}: loss {float(tf.reduce_mean(epoch_loss)):.4f}, "
        f"accuracy {float(train_accuracy.result()):.3f}, updates so far {int(optimizer.iterations)}"
    )
    train_accuracy.reset_state()
