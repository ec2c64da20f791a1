"""A tf-keras (Keras 2) model with a layer of ours, a loss and a metric of ours, fitted for one
epoch of two batches: AutoGraph converts them. Breakpoint lines are marked `# stop: NAME`."""

import tensorflow as tf
import tf_keras as keras


class Scale(keras.layers.Layer):
    def call(self, inputs, training=None):
        if training:  # stop: call
            return inputs * 3
        return inputs


def mse(y_true, y_pred):
    return tf.reduce_mean(tf.square(y_true - y_pred))  # stop: loss


class Count(keras.metrics.Metric):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.seen = self.add_weight(name="seen", initializer="zeros")

    def update_state(self, y_true, y_pred, sample_weight=None):
        self.seen.assign_add(tf.cast(tf.shape(y_true)[0], tf.float32))  # stop: metric

    def result(self):
        return self.seen


model = keras.Sequential([keras.Input((2,)), Scale(name="scale"), keras.layers.Dense(1)])
model.compile(optimizer="sgd", loss=mse, metrics=[Count(name="count")])
model.fit(tf.ones((8, 2)), tf.ones((8, 1)), batch_size=4, epochs=1, verbose=0)
print("fitted")
