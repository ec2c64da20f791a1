# Real-user hazard: a training loop logs the loss with print inside the @tf.function step; it prints symbolic Tensors, only while tracing.
# After: https://github.com/YosefLab/epitome/issues/51 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): 300 steps print 'Tensor("step:0"...) Tensor("Mean:0"...)' twice, at trace time, and never a loss value
import numpy as np
import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input(shape=(6,)), tf.keras.layers.Dense(1)])
optimizer = tf.keras.optimizers.Adam()


@tf.function
def train_step(x, y, step):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x) - y))
    optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables, strict=True))
    if step % 100 == 0:
        print(step, loss)  # expect: TFI006
    return loss


x, y = np.random.rand(64, 6).astype("float32"), np.random.rand(64, 1).astype("float32")
for step in range(300):
    train_step(x, y, tf.constant(step))
