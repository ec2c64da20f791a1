# Real-user hazard: a graph-convolution layer tests its optional bias weight with `if self.bias:`, which asks a variable for its truth value.
# After: https://github.com/tkipf/keras-gcn/issues/55 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): TypeError while building the model: A Keras Variable cannot be used as a boolean
import numpy as np
import tensorflow as tf


class GCNLayer(tf.keras.layers.Layer):
    def __init__(self, units, use_bias=True, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.use_bias = use_bias
        self.bias = None

    def build(self, input_shape):
        feat_shape = input_shape[0]
        self.kernel = self.add_weight(shape=(feat_shape[-1], self.units), name="kernel")
        if self.use_bias:
            self.bias = self.add_weight(shape=(self.units,), initializer="zeros", name="bias")

    def call(self, inputs):
        features, adjacency = inputs
        output = tf.matmul(tf.matmul(adjacency, features), self.kernel)
        if self.bias:  # expect: TFI013
            output = output + self.bias
        return output


node_feats = tf.keras.Input(shape=(10, 4))
adj = tf.keras.Input(shape=(10, 10))
h = GCNLayer(8)([node_feats, adj])
model = tf.keras.Model([node_feats, adj], h)
model.compile(optimizer="adam", loss="mse")
model.fit([np.random.rand(2, 10, 4), np.random.rand(2, 10, 10)], np.random.rand(2, 10, 8), verbose=0)
print("trained")
