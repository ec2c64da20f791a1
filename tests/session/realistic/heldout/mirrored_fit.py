"""Data-parallel training with `tf.distribute.MirroredStrategy` and `fit`, on two logical CPU
devices: model built and compiled under the strategy scope, a learning-rate schedule callback,
a callback that prints the learning rate, then `evaluate`.

Written after the TensorFlow tutorial "Distributed training with Keras"
(https://www.tensorflow.org/tutorials/distribute/keras). Our own code; MNIST is replaced by
synthetic 28x28 images (a class-dependent bright patch), and the GPUs by two logical CPUs.
"""

import numpy as np
import tensorflow as tf

# Split the one CPU into two logical devices, so that the strategy has two replicas.
cpus = tf.config.list_physical_devices("CPU")
tf.config.set_logical_device_configuration(
    cpus[0], [tf.config.LogicalDeviceConfiguration(), tf.config.LogicalDeviceConfiguration()]
)

strategy = tf.distribute.MirroredStrategy(devices=["/cpu:0", "/cpu:1"])
print(f"Number of devices: {strategy.num_replicas_in_sync}")

BUFFER_SIZE = 1000
BATCH_SIZE_PER_REPLICA = 32
BATCH_SIZE = BATCH_SIZE_PER_REPLICA * strategy.num_replicas_in_sync


def make_images(n, rng):
    labels = rng.integers(0, 10, size=n)
    images = rng.uniform(0, 0.3, size=(n, 28, 28, 1)).astype("float32")
    for i, label in enumerate(labels):
        r, c = divmod(int(label), 4)
        images[i, 2 + 8 * r : 8 + 8 * r, 2 + 6 * c : 8 + 6 * c, 0] += 0.7
    return images, labels.astype("int64")


rng = np.random.default_rng(1)
train_images, train_labels = make_images(800, rng)
eval_images, eval_labels = make_images(200, rng)

train_dataset = (
    tf.data.Dataset.from_tensor_slices((train_images, train_labels)).shuffle(BUFFER_SIZE).batch(BATCH_SIZE)
)
eval_dataset = tf.data.Dataset.from_tensor_slices((eval_images, eval_labels)).batch(BATCH_SIZE)

with strategy.scope():
    model = tf.keras.Sequential(
        [
            tf.keras.layers.Input(shape=(28, 28, 1)),
            tf.keras.layers.Conv2D(16, 3, activation="relu"),
            tf.keras.layers.MaxPooling2D(),
            tf.keras.layers.Flatten(),
            tf.keras.layers.Dense(32, activation="relu"),
            tf.keras.layers.Dense(10),
        ]
    )
    model.compile(
        loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        optimizer=tf.keras.optimizers.Adam(),
        metrics=["accuracy"],
    )


def decay(epoch):
    if epoch < 2:
        return 1e-3
    elif epoch < 4:
        return 5e-4
    return 1e-4


class PrintLR(tf.keras.callbacks.Callback):
    def on_epoch_end(self, epoch, logs=None):
        lr = float(self.model.optimizer.learning_rate.numpy())
        print(f"\nLearning rate for epoch {epoch + 1} is {lr}")


callbacks = [tf.keras.callbacks.LearningRateScheduler(decay), PrintLR()]
model.fit(train_dataset, epochs=5, callbacks=callbacks, verbose=2)

eval_loss, eval_acc = model.evaluate(eval_dataset, verbose=0)
print(f"Eval loss: {eval_loss:.4f}, Eval accuracy: {eval_acc:.4f}")
