# Real-user hazard: an instance-norm helper creates its scale and offset tf.Variables inside the function that a Lambda layer wraps; the Lambda does not own them and every trace creates them again.
# After: https://github.com/sumuzhao/CycleGAN-Music-Style-Transfer-Refactorization/issues/3 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): the model builds with 2 trainable weights (the Conv2D only; scale and offset are not tracked); fit raises ValueError: tf.function only supports singleton tf.Variables created on the first call (in Lambda.call)
import numpy as np
import tensorflow as tf


def instance_norm(x):
    depth = x.shape[-1]
    scale = tf.Variable(tf.ones([depth]), name="scale")  # expect: TFI008
    offset = tf.Variable(tf.zeros([depth]), name="offset")
    mean, variance = tf.nn.moments(x, axes=[1, 2], keepdims=True)
    return scale * (x - mean) * tf.math.rsqrt(variance + 1e-5) + offset


def residual_block(x, filters):
    y = tf.keras.layers.Conv2D(filters, 3, padding="same")(x)
    y = tf.keras.layers.Lambda(instance_norm, output_shape=lambda shape: shape, name="instance_norm")(y)
    return tf.keras.layers.Add()([x, tf.keras.layers.ReLU()(y)])


piano_rolls = tf.keras.Input((16, 16, 8))
generator = tf.keras.Model(piano_rolls, residual_block(piano_rolls, 8))
print("generator trainable weights:", len(generator.trainable_weights))
generator.compile(optimizer="adam", loss="mae")
generator.fit(np.random.rand(8, 16, 16, 8), np.random.rand(8, 16, 16, 8), epochs=1, verbose=0)
