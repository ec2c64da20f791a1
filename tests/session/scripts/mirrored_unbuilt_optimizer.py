"""A custom loop under MirroredStrategy whose Keras 3 optimizer creates its slots inside the
first distributed step (no `optimizer.build` under the scope): the graph fails at run time
with "You must feed a value for placeholder tensor 'cond/else/...'"."""

import numpy as np
import tensorflow as tf

cpus = tf.config.list_physical_devices("CPU")
tf.config.set_logical_device_configuration(
    cpus[0], [tf.config.LogicalDeviceConfiguration(), tf.config.LogicalDeviceConfiguration()])
strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
features = np.ones((8, 3), "float32")
dataset = strategy.experimental_distribute_dataset(
    tf.data.Dataset.from_tensor_slices((features, features[:, :1])).batch(4))

with strategy.scope():
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
    optimizer = tf.keras.optimizers.Adam()


def step(inputs):
    x, y = inputs
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x) - y))
    optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables),
                                  model.trainable_variables, strict=True))
    return loss


@tf.function
def distributed_step(inputs):
    return strategy.run(step, args=(inputs,))


for batch in dataset:
    distributed_step(batch)  # @verdict
