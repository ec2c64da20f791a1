"""A custom training loop: 1,200 `tf.function` steps, then 300 steps under an eager tape."""

import numpy as np
import tensorflow as tf

keras = tf.keras
model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(16, "relu"), keras.layers.Dense(1)])
optimizer = keras.optimizers.SGD(0.01)
features = tf.constant(np.random.default_rng(0).normal(size=(32, 8)), tf.float32)
targets = tf.reduce_sum(features, axis=1, keepdims=True)


def loss_and_update():
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(features, training=True) - targets))
    optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables),
                                  model.trainable_variables, strict=True))
    return loss


train_step = tf.function(loss_and_update)
for _ in range(1200):
    loss = train_step()
for _ in range(300):
    loss = loss_and_update()
print("loss", float(loss))
