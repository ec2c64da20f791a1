# Real-user hazard: a frozen-aware BatchNormalization turns its training flag into a tensor (tf.logical_and with self.trainable) and passes it to the base layer, which uses it as a Python bool.
# After: https://github.com/YunYang1994/TensorFlow2.0-Examples/pull/36 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): the eager call and building the model work; fit raises OperatorNotAllowedInGraphError: Using a symbolic `tf.Tensor` as a Python `bool` is not allowed (in Keras' BatchNormalization.call, 'if training and self.trainable')
import tensorflow as tf


class FrozenAwareBatchNorm(tf.keras.layers.BatchNormalization):
    def call(self, x, training=False):
        if not training:
            training = tf.constant(False)
        training = tf.logical_and(training, self.trainable)
        return super().call(x, training=training)  # expect: NEW-tensor-as-training-flag


def conv_block(x, filters):
    x = tf.keras.layers.Conv2D(filters, 3, padding="same", use_bias=False)(x)
    x = FrozenAwareBatchNorm()(x)
    return tf.keras.layers.LeakyReLU(0.1)(x)


print("eager:", FrozenAwareBatchNorm()(tf.random.normal([2, 4, 4, 8])).shape)
images = tf.keras.Input((32, 32, 3))
detector = tf.keras.Model(images, conv_block(images, 16))
detector.compile(optimizer="adam", loss="mse")
detector.fit(tf.random.normal([8, 32, 32, 3]), tf.random.normal([8, 32, 32, 16]), epochs=1, verbose=0)
