# Real-user hazard: a functional model applies tf.numpy_function (wrapping a NumPy transform) directly to the keras.Input; on an eager tensor the call works, but the Input is a symbolic KerasTensor that a raw TensorFlow op cannot take.
# After: https://github.com/tensorflow/tensorflow/issues/43542 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): on an eager tensor tf.numpy_function returns [[0.462 0.995]]; applied to the keras.Input it raises ValueError: A KerasTensor is symbolic: it's a placeholder for a shape an a dtype. It doesn't have any actual numerical value. You cannot convert it to a NumPy array.
import keras
import numpy as np
import tensorflow as tf


def soft_clip(values):
    return np.tanh(values).astype(np.float32)


print("eager:", tf.numpy_function(soft_clip, [tf.constant([[0.5, 3.0]])], tf.float32).numpy())

inputs = keras.Input(shape=(2,))
clipped = tf.numpy_function(soft_clip, [inputs], tf.float32)  # expect: TFI015
outputs = keras.layers.Dense(1)(clipped)
model = keras.Model(inputs, outputs)
print("model built")
