# Real-user hazard: a residual block written with the functional API adds a perturbation made with tf.Variable(lambda: tf.zeros_like(net)), where net is the block's KerasTensor; a raw TensorFlow op (and a variable) cannot take a symbolic Keras tensor, so the model cannot be built.
# After: https://github.com/Apm5/tensorflow_2.0_tutorial/issues/1 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): building the model raises, at the tf.Variable line (inside its initial-value lambda), ValueError: A KerasTensor cannot be used as input to a TensorFlow function. A KerasTensor is a symbolic placeholder for a shape and dtype, used when constructing Keras Functional models or Keras Functions. (tf-keras refuses it too: TypeError: You are passing KerasTensor(... name='tf.zeros_like/zeros_like:0' ...), an intermediate TF-Keras symbolic input/output, to a TF API that does not allow registering custom dispatchers)
import keras
import numpy as np
import tensorflow as tf


def perturbed_block(inputs, channels):
    net = keras.layers.Conv2D(channels, 3, padding="same")(inputs)
    delta = tf.Variable(lambda: tf.zeros_like(net))  # expect: TFI015
    net = net * (1.0 + delta)
    return keras.layers.Activation("relu")(net)


image = keras.Input(shape=(8, 8, 3))
features = perturbed_block(image, 4)
model = keras.Model(image, keras.layers.Dense(2)(keras.layers.Flatten()(features)))
print("model built")
model.compile(optimizer="sgd", loss="mse")
model.fit(np.ones((4, 8, 8, 3)), np.ones((4, 2)), verbose=0)
print("trained")
