# Real-user hazard: a pooling layer loops over the documents of its input batch with a Python for loop in call; called on a concrete batch it works, but Keras 3 does not convert call with AutoGraph, so building the functional model iterates over a symbolic tensor.
# After: https://github.com/tensorflow/tensorflow/issues/40768 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): the eager call pools a (3, 5, 8) batch to (3, 8); building the functional model raises OperatorNotAllowedInGraphError: Exception encountered when calling SentenceMaxPool.call() ... Iterating over a symbolic `tf.Tensor` is not allowed
import keras
import numpy as np
import tensorflow as tf


class SentenceMaxPool(keras.layers.Layer):
    def call(self, inputs):
        pooled = []
        for document in inputs:  # expect: TFI013
            pooled.append(tf.reduce_max(document, axis=0))
        return tf.stack(pooled)


batch = np.random.RandomState(0).normal(size=(3, 5, 8)).astype("float32")
print("eager:", SentenceMaxPool()(batch).shape)
inputs = keras.Input((5, 8))
model = keras.Model(inputs, keras.layers.Dense(2)(SentenceMaxPool()(inputs)))
