# Real-user hazard: a tf.function builds a new Adam optimizer on every call and applies it, so optimizer variables are created inside the function.
# After: https://github.com/tensorflow/tensorflow/issues/42183 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): ValueError on the first call: tf.function only supports singleton tf.Variables created on the first call (raised from the optimizer's iterations variable)
import tensorflow as tf

weights = tf.Variable([1.0, 2.0, 3.0])


@tf.function
def fit_step(target):
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.square(weights - target))
    grads = tape.gradient(loss, [weights])
    tf.keras.optimizers.Adam(0.5).apply_gradients([(grads[0], weights)])  # expect: NEW-optimizer-created-in-function
    return loss


for _ in range(3):
    print(float(fit_step(tf.zeros([3]))))
