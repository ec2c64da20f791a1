import tensorflow as tf


class Scale(tf.keras.layers.Layer):
    def call(self, inputs, training=None):
        @tf.custom_gradient
        def forward(x):
            return x * 2.0, lambda dy: dy * 2.0

        return forward(inputs)
