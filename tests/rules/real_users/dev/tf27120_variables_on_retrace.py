# Real-user hazard: a Python flag argument retraces a tf.function, and the new trace creates the optimizer's variables.
# After: https://github.com/tensorflow/tensorflow/issues/27120 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): ValueError: Creating variables on a non-first call to a function decorated with tf.function.
import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(1)])
optimizer = tf.keras.optimizers.Adam()


@tf.function
def step(x, y, apply_update):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x) - y))
    if apply_update:
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables, strict=True))  # expect: NEW-variables-created-on-retrace
    return loss


x, y = tf.ones([8, 4]), tf.zeros([8, 1])
print("eval loss", step(x, y, False).numpy())
print("train loss", step(x, y, True).numpy())
