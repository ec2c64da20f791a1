# Real-user hazard: a channel-shuffle block reshapes with the static height and width read from x.shape; with a free-size input (None, None, 3) they are None and the reshape cannot be built.
# After: https://github.com/opconty/keras-shufflenetV2/issues/3 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): works eagerly ((1, 8, 8, 16)) and with a fixed 32x32 input ((None, 30, 30, 16)); with Input((None, None, 3)) building the model raises TypeError (could not infer the output shape; error encountered: Failed to convert elements of [-1, None, None, 2, 8] to Tensor)
import tensorflow as tf


class ChannelShuffle(tf.keras.layers.Layer):
    def call(self, x):
        height, width, channels = x.shape[1], x.shape[2], x.shape[3]
        per_group = channels // 2
        x = tf.reshape(x, [-1, height, width, 2, per_group])  # expect: NEW-static-shape-none
        x = tf.transpose(x, [0, 1, 2, 4, 3])
        return tf.reshape(x, [-1, height, width, channels])


print("eager:", ChannelShuffle()(tf.random.normal([1, 8, 8, 16])).shape)
fixed = tf.keras.Input((32, 32, 3))
print("fixed size:", ChannelShuffle()(tf.keras.layers.Conv2D(16, 3)(fixed)).shape)
free = tf.keras.Input((None, None, 3))
features = tf.keras.layers.Conv2D(16, 3)(free)
model = tf.keras.Model(free, ChannelShuffle()(features))
