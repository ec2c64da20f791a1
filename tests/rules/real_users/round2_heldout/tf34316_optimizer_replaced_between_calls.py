# Real-user hazard: a training tf.function reads a module-level optimizer that the script later replaces with a new one.
# After: https://github.com/tensorflow/tensorflow/issues/34316 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): the second call still applies the old SGD (scale 0.8 -> 0.64) and the new Adam never runs (iterations 0); no error, no retrace
import tensorflow as tf

scale = tf.Variable([1.0])
optimizer = tf.keras.optimizers.SGD(0.1)


@tf.function
def train():
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.square(scale))
    grads = tape.gradient(loss, [scale])
    optimizer.apply_gradients([(grads[0], scale)])  # expect: TFI003
    return loss


train()
print("after SGD step:", scale.numpy(), "SGD iterations:", int(optimizer.iterations))
optimizer = tf.keras.optimizers.Adam(0.5)
train()
print("after switching to Adam:", scale.numpy(), "Adam iterations:", int(optimizer.iterations))
