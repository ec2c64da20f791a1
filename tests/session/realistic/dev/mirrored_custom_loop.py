"""A custom training loop under `tf.distribute.MirroredStrategy` on two logical CPU devices:
distributed datasets, `strategy.run` inside `@tf.function` train and test steps, per-example
losses scaled by the global batch size, `strategy.reduce`, and a checkpoint per epoch.

Written after the TensorFlow tutorial "Custom training with tf.distribute.Strategy"
(https://www.tensorflow.org/tutorials/distribute/custom_training). Our own code; Fashion-MNIST
is replaced by synthetic 28x28 images with a class-dependent stripe pattern. The last training
batch is short (600 is not a multiple of 64), so each step is traced once more for it.
"""

import os
import tempfile

import numpy as np
import tensorflow as tf

cpus = tf.config.list_physical_devices("CPU")
tf.config.set_logical_device_configuration(
    cpus[0], [tf.config.LogicalDeviceConfiguration(), tf.config.LogicalDeviceConfiguration()]
)
strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
print("Number of devices:", strategy.num_replicas_in_sync)

BATCH_SIZE_PER_REPLICA = 32
GLOBAL_BATCH_SIZE = BATCH_SIZE_PER_REPLICA * strategy.num_replicas_in_sync
EPOCHS = 3


def make_fashion(n, rng):
    labels = rng.integers(0, 10, size=n)
    images = rng.uniform(0, 0.4, size=(n, 28, 28, 1)).astype("float32")
    for i, label in enumerate(labels):
        images[i, :, 2 * label + 3, 0] += 0.6  # a vertical stripe whose column is the class
    return images, labels.astype("int64")


rng = np.random.default_rng(99)
train_images, train_labels = make_fashion(600, rng)
test_images, test_labels = make_fashion(128, rng)

train_dataset = (
    tf.data.Dataset.from_tensor_slices((train_images, train_labels)).shuffle(600).batch(GLOBAL_BATCH_SIZE)
)
test_dataset = tf.data.Dataset.from_tensor_slices((test_images, test_labels)).batch(GLOBAL_BATCH_SIZE)
train_dist_dataset = strategy.experimental_distribute_dataset(train_dataset)
test_dist_dataset = strategy.experimental_distribute_dataset(test_dataset)


def create_model():
    regularizer = tf.keras.regularizers.L2(1e-5)
    return tf.keras.Sequential(
        [
            tf.keras.layers.Input(shape=(28, 28, 1)),
            tf.keras.layers.Conv2D(16, 3, activation="relu", kernel_regularizer=regularizer),
            tf.keras.layers.MaxPooling2D(),
            tf.keras.layers.Flatten(),
            tf.keras.layers.Dense(32, activation="relu", kernel_regularizer=regularizer),
            tf.keras.layers.Dense(10),
        ]
    )


checkpoint_dir = tempfile.mkdtemp(prefix="mirrored_ckpt_")
checkpoint_prefix = os.path.join(checkpoint_dir, "ckpt")

with strategy.scope():
    # Per-example losses: the scaling by the global batch size is done by hand below.
    loss_object = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction="none")

    def compute_loss(labels, predictions, model_losses):
        per_example_loss = loss_object(labels, predictions)
        loss = tf.nn.compute_average_loss(per_example_loss, global_batch_size=GLOBAL_BATCH_SIZE)
        if model_losses:
            loss += tf.nn.scale_regularization_loss(tf.add_n(model_losses))
        return loss

    test_loss = tf.keras.metrics.Mean(name="test_loss")
    train_accuracy = tf.keras.metrics.SparseCategoricalAccuracy(name="train_accuracy")
    test_accuracy = tf.keras.metrics.SparseCategoricalAccuracy(name="test_accuracy")

    model = create_model()
    optimizer = tf.keras.optimizers.Adam(learning_rate=1e-3)
    # Keras 3 creates optimizer slots lazily; make them now, under the scope, as mirrored variables.
    optimizer.build(model.trainable_variables)
    checkpoint = tf.train.Checkpoint(optimizer=optimizer, model=model)


def train_step(inputs):
    images, labels = inputs
    with tf.GradientTape() as tape:
        predictions = model(images, training=True)
        loss = compute_loss(labels, predictions, model.losses)
    gradients = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(gradients, model.trainable_variables))
    train_accuracy.update_state(labels, predictions)
    return loss


def test_step(inputs):
    images, labels = inputs
    predictions = model(images, training=False)
    t_loss = loss_object(labels, predictions)
    test_loss.update_state(t_loss)
    test_accuracy.update_state(labels, predictions)


@tf.function
def distributed_train_step(dataset_inputs):
    per_replica_losses = strategy.run(train_step, args=(dataset_inputs,))
    return strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica_losses, axis=None)


@tf.function
def distributed_test_step(dataset_inputs):
    return strategy.run(test_step, args=(dataset_inputs,))


for epoch in range(EPOCHS):
    total_loss = 0.0
    num_batches = 0
    for x in train_dist_dataset:
        total_loss += distributed_train_step(x)
        num_batches += 1
    train_loss = total_loss / num_batches

    for x in test_dist_dataset:
        distributed_test_step(x)

    checkpoint.save(checkpoint_prefix)

    print(
        f"Epoch {epoch + 1}, Loss: {float(train_loss):.4f}, "
        f"Accuracy: {float(train_accuracy.result()) * 100:.2f}, "
        f"Test Loss: {float(test_loss.result()):.4f}, "
        f"Test Accuracy: {float(test_accuracy.result()) * 100:.2f}"
    )
    test_loss.reset_state()
    train_accuracy.reset_state()
    test_accuracy.reset_state()
