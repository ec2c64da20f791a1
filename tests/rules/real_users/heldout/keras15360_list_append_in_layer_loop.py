# Real-user hazard: a custom layer loops over the batch with tf.range in call() and collects per-sample results in a Python list.
# After: https://github.com/keras-team/keras/issues/15360 (pattern only; this code is ours)
# Confirmed on TF 2.21 (tf-keras): building the model raises InaccessibleTensorError: <tf.Tensor '.../while/Reshape_1:0'> is out of scope and cannot be used here
import os

os.environ["TF_USE_LEGACY_KERAS"] = "1"
import numpy as np
import tensorflow as tf


class OuterProductLayer(tf.keras.layers.Layer):
    def __init__(self, n_features, **kwargs):
        super().__init__(**kwargs)
        self.n_features = n_features

    def call(self, x):
        products = []
        for i in tf.range(tf.shape(x)[0]):
            outer = x[i, 0, :]
            for f in range(1, self.n_features):
                outer = tf.reshape(tf.tensordot(outer, x[i, f, :], axes=0), [-1])
            products.append(outer)  # expect: NEW-python-list-in-tensor-loop
        return tf.stack(products)


inputs = tf.keras.Input(shape=(3, 2))
model = tf.keras.Model(inputs, OuterProductLayer(3)(inputs))
print(model.predict(np.random.rand(4, 3, 2), verbose=0).shape)
