"""A digit-classifier-shaped MLP trained by a hand-written loop: GradientTape inside a
`@tf.function` train step, a compiled test step, metrics reset at the end of each epoch and
TensorBoard summaries written from the loop.

Written after the keras.io guide "Writing a training loop from scratch in TensorFlow"
(https://keras.io/guides/writing_a_custom_training_loop_in_tensorflow/). Our own code; MNIST is
replaced by 784-feature synthetic "images" from 10 noisy prototypes.
"""

import tempfile
import time

import keras
import numpy as np
import tensorflow as tf

BATCH_SIZE = 64
EPOCHS = 3


def make_digits(n, prototypes, rng):
    labels = rng.integers(0, 10, size=n)
    images = prototypes[labels] + rng.normal(0, 0.35, size=(n, 784))
    return images.astype("float32"), labels.astype("int64")


rng = np.random.default_rng(2024)
prototypes = rng.uniform(0, 1, size=(10, 784))
x_train, y_train = make_digits(1024, prototypes, rng)
x_val, y_val = make_digits(200, prototypes, rng)

train_dataset = tf.data.Dataset.from_tensor_slices((x_train, y_train))
train_dataset = train_dataset.shuffle(buffer_size=1024).batch(BATCH_SIZE)
val_dataset = tf.data.Dataset.from_tensor_slices((x_val, y_val)).batch(BATCH_SIZE)

inputs = keras.Input(shape=(784,), name="digits")
x1 = keras.layers.Dense(64, activation="relu")(inputs)
x2 = keras.layers.Dense(64, activation="relu")(x1)
outputs = keras.layers.Dense(10, name="predictions")(x2)
model = keras.Model(inputs=inputs, outputs=outputs)

optimizer = keras.optimizers.SGD(learning_rate=1e-2)
loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
train_acc_metric = keras.metrics.SparseCategoricalAccuracy()
val_acc_metric = keras.metrics.SparseCategoricalAccuracy()
train_loss_metric = keras.metrics.Mean()

log_dir = tempfile.mkdtemp(prefix="scratch_logs_")
train_writer = tf.summary.create_file_writer(log_dir + "/train")
val_writer = tf.summary.create_file_writer(log_dir + "/validation")


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        logits = model(x, training=True)
        loss_value = loss_fn(y, logits)
    grads = tape.gradient(loss_value, model.trainable_weights)
    optimizer.apply_gradients(zip(grads, model.trainable_weights))
    train_acc_metric.update_state(y, logits)
    train_loss_metric.update_state(loss_value)
    return loss_value


@tf.function
def test_step(x, y):
    val_logits = model(x, training=False)
    val_acc_metric.update_state(y, val_logits)


for epoch in range(EPOCHS):
    print(f"\nStart of epoch {epoch}")
    start_time = time.time()

    for step, (x_batch_train, y_batch_train) in enumerate(train_dataset):
        loss_value = train_step(x_batch_train, y_batch_train)
        if step % 8 == 0:
            print(f"Training loss (for one batch) at step {step}: {float(loss_value):.4f}")

    train_acc = train_acc_metric.result()
    with train_writer.as_default():
        tf.summary.scalar("accuracy", train_acc, step=epoch)
        tf.summary.scalar("loss", train_loss_metric.result(), step=epoch)
    print(f"Training acc over epoch: {float(train_acc):.4f}")
    train_acc_metric.reset_state()
    train_loss_metric.reset_state()

    for x_batch_val, y_batch_val in val_dataset:
        test_step(x_batch_val, y_batch_val)
    val_acc = val_acc_metric.result()
    with val_writer.as_default():
        tf.summary.scalar("accuracy", val_acc, step=epoch)
    val_acc_metric.reset_state()
    print(f"Validation acc: {float(val_acc):.4f}")
    print(f"Time taken: {time.time() - start_time:.2f}s")

train_writer.flush()
val_writer.flush()
