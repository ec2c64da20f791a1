# Real-user hazard: an experiment computes the loss from a hidden layer's output tensor (captured from the model-building code) instead of from y_pred.
# After: https://thinbug.com/q/51257037 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): fit raises ValueError: A KerasTensor cannot be used as input to a TensorFlow function (the keras.ops.sum result is a KerasTensor that Keras then feeds to TensorFlow), with no frame of the loss in the traceback
import keras
import numpy as np

inputs = keras.Input(shape=(5,))
hidden = keras.layers.Dense(2)(inputs)
outputs = keras.layers.Dense(1)(hidden)
model = keras.Model(inputs, outputs)


def hidden_activity_loss(y_true, y_pred):
    return keras.ops.sum(hidden)  # expect: NEW-keras-tensor-in-loss


model.compile(optimizer="adam", loss=hidden_activity_loss)
model.fit(np.random.rand(10, 5), np.random.rand(10, 1), epochs=2, verbose=0)
