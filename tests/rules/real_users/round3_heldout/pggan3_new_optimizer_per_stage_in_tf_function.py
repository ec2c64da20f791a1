# Real-user hazard: a progressive GAN grows its critic and makes a fresh Adam for each resolution, but keeps one module-level tf.function train step; the grown critic retraces it and the new optimizer's variables are created inside that later trace.
# After: https://github.com/henry32144/pggan-tensorflow/issues/3 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): the 4x4 stage trains; the first 8x8 step raises ValueError: tf.function only supports singleton tf.Variables created on the first call (the same loop without @tf.function trains both stages)
import tensorflow as tf


def make_critic(resolution):
    layers = [tf.keras.Input(shape=(resolution, resolution, 1))]
    for _ in range(resolution // 4):
        layers.append(tf.keras.layers.Conv2D(4, 3, strides=2, padding="same"))
    layers += [tf.keras.layers.Flatten(), tf.keras.layers.Dense(1)]
    return tf.keras.Sequential(layers)


@tf.function
def train_critic_step(critic, real, fake):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(critic(fake)) - tf.reduce_mean(critic(real))
    grads = tape.gradient(loss, critic.trainable_variables)
    optimizer.apply_gradients(zip(grads, critic.trainable_variables, strict=True))  # expect: NEW-variables-created-on-retrace, TFI003
    return loss


for resolution in (4, 8):
    critic = make_critic(resolution)
    optimizer = tf.keras.optimizers.Adam(1e-3)
    for _ in range(3):
        real = tf.random.normal([2, resolution, resolution, 1])
        loss = train_critic_step(critic, real, tf.random.normal([2, resolution, resolution, 1]))
    print("resolution", resolution, "trained, last loss", float(loss))
