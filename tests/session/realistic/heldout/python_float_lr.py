"""A small regression network trained by hand-written SGD: the training step is a
`@tf.function` that takes the learning rate as an argument, and the loop decays that rate
(a Python float) after every step.

Written after the TensorFlow guide "Basic training loops"
(https://www.tensorflow.org/guide/basic_training_loops), whose `train(model, x, y,
learning_rate)` updates variables with `assign_sub(learning_rate * grad)`; here the step is
compiled with `tf.function` and the rate decays exponentially. Our own code and data.
Each new float value is a new trace: the step is traced on every call.
"""

import math

import numpy as np
import tensorflow as tf

BATCH_SIZE = 32
EPOCHS = 3
INITIAL_LR = 0.05
DECAY_RATE = 0.96

rng = np.random.default_rng(17)
x_data = rng.uniform(-2, 2, size=(256, 3)).astype("float32")
y_data = (np.sin(x_data[:, :1]) + 0.5 * x_data[:, 1:2] ** 2 - x_data[:, 2:3]).astype("float32")
y_data += rng.normal(0, 0.05, size=y_data.shape).astype("float32")

dataset = tf.data.Dataset.from_tensor_slices((x_data, y_data)).shuffle(256).batch(BATCH_SIZE)

model = tf.keras.Sequential(
    [
        tf.keras.layers.Input(shape=(3,)),
        tf.keras.layers.Dense(32, activation="tanh"),
        tf.keras.layers.Dense(32, activation="tanh"),
        tf.keras.layers.Dense(1),
    ]
)


def loss_fn(y_true, y_pred):
    return tf.reduce_mean(tf.square(y_true - y_pred))


@tf.function
def train_step(x, y, learning_rate):
    with tf.GradientTape() as tape:
        loss = loss_fn(y, model(x, training=True))
    grads = tape.gradient(loss, model.trainable_variables)
    for var, grad in zip(model.trainable_variables, grads):
        var.assign_sub(learning_rate * grad)
    return loss


lr_history = []
step = 0
for epoch in range(EPOCHS):
    losses = []
    for x_batch, y_batch in dataset:
        lr = INITIAL_LR * math.pow(DECAY_RATE, step)
        lr_history.append(lr)
        losses.append(float(train_step(x_batch, y_batch, lr)))  # <- hazard
        step += 1
    print(f"Epoch {epoch}: loss={np.mean(losses):.4f} lr={lr:.4f}")

print("final mse:", float(loss_fn(y_data, model(x_data))))
