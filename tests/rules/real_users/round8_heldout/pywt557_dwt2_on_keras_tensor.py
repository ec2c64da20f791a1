# Real-user hazard: a CNN replaces max pooling by a 2-D discrete wavelet transform, calling PyWavelets' dwt2 on the output of a Conv2D while building a functional model; the output is a KerasTensor (a symbolic placeholder), and PyWavelets needs a NumPy array.
# After: https://github.com/PyWavelets/pywt/issues/557 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3, PyWavelets 1.9.0): on a NumPy image dwt2 gives a (16, 16) approximation and three (16, 16) details; building the model raises ValueError: A KerasTensor is symbolic: it's a placeholder for a shape an a dtype. It doesn't have any actual numerical value. You cannot convert it to a NumPy array.
import keras
import numpy as np
import pywt

approx, details = pywt.dwt2(np.random.rand(32, 32), "haar")
print("on a NumPy image:", approx.shape, [band.shape for band in details])

inputs = keras.Input((32, 32, 1))
features = keras.layers.Conv2D(8, 3, padding="same")(inputs)
low, (horizontal, vertical, diagonal) = pywt.dwt2(features, "haar", axes=(1, 2))  # expect: NEW-keras-tensor-as-python-value
merged = keras.layers.Concatenate()([low, horizontal, vertical, diagonal])
outputs = keras.layers.Dense(1)(keras.layers.Flatten()(merged))
model = keras.Model(inputs, outputs)
