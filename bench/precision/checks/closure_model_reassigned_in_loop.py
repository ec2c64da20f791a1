"""A tf.function defined once in a method reads `model` and a `Mean` metric from its closure;
the loop below it makes a new model and metric each iteration. Which ones does the traced step
train and update on the second iteration?"""
import numpy as np
import tensorflow as tf


def run():
    @tf.function
    def train_on_batch(x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean((model(x, training=True) - y) ** 2)
        grads = tape.gradient(loss, model.trainable_weights)
        optimizer.apply_gradients(zip(grads, model.trainable_weights, strict=True))
        train_loss(loss)

    optimizer = tf.keras.optimizers.Adam(0.1)
    x, y = np.ones((4, 3), "float32"), np.zeros((4, 1), "float32")
    for iteration in range(2):
        model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
        train_loss = tf.keras.metrics.Mean()
        before = model.get_weights()[0].copy()
        train_on_batch(x, y)
        changed = not np.allclose(before, model.get_weights()[0])
        print(f"iteration {iteration}: this iteration's model trained: {changed}, "
              f"its metric counted {int(train_loss.count.numpy())} batches")


run()
