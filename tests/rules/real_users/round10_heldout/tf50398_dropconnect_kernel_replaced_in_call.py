# Real-user hazard: a DropConnect layer drops kernel entries by assigning the dropped tensor back to self.kernel inside call; in the traced training step self.kernel becomes a graph tensor of that trace, and the next graph that reads it (evaluation, predict) gets a tensor of another graph.
# After: https://github.com/tensorflow/tensorflow/issues/50398 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): fit runs to the end; the predict after it raises TypeError: <tf.Tensor 'functional_1/drop_connect_dense_1/dropout/SelectV2:0' shape=(4, 2) dtype=float32> is out of scope and cannot be used here (defined in FuncGraph one_step_on_data)
import keras
import numpy as np
import tensorflow as tf


class DropConnectDense(keras.layers.Layer):
    def __init__(self, units, rate=0.5, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.rate = rate

    def build(self, input_shape):
        self.kernel = self.add_weight(name="kernel", shape=(input_shape[-1], self.units))

    def call(self, inputs, training=None):
        if training:
            self.kernel = tf.nn.dropout(self.kernel, rate=self.rate)  # expect: TFI006
        return tf.matmul(inputs, self.kernel)


x = np.random.RandomState(0).normal(size=(32, 4)).astype("float32")
y = np.random.RandomState(1).normal(size=(32, 2)).astype("float32")
inputs = keras.Input((4,))
model = keras.Model(inputs, DropConnectDense(2)(inputs))
model.compile(optimizer="sgd", loss="mse")
model.fit(x, y, batch_size=8, epochs=1, verbose=0)
print("fit done")
print("predict:", model.predict(x, verbose=0).shape)
