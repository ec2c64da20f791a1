"""Keras 1 spellings that Keras 3 (TF 2.21) refuses before any later line runs: a layer's
`output_shape` (AttributeError) and `Model(input=..., output=...)` (ValueError: unrecognized
keyword arguments). A `predict` loop after either never runs there.

    .venv/bin/python bench/precision/checks/keras3_model_input_output_keywords.py
"""
import keras
from keras.layers import GRU, Dense, Input
from keras.models import Model

inputs = Input(shape=(None, 3))
hidden = GRU(4)(inputs)
model = Model(inputs=inputs, outputs=Dense(2)(hidden))
try:
    print("output_shape:", model.layers[1].output_shape)
except AttributeError as error:
    print("AttributeError:", error)
try:
    Model(input=inputs, output=hidden)
    print("Model(input=, output=): built")
except (TypeError, ValueError) as error:
    print(type(error).__name__, str(error)[:60])
print("keras", keras.__version__)
