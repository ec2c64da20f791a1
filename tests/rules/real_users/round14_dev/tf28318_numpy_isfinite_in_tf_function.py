# Real-user hazard: an agent's action step, compiled with @tf.function, checks the actor network's output with np.isfinite; inside the trace the action is a symbolic tensor that NumPy cannot read, so the step fails although the same code runs eagerly.
# After: https://github.com/tensorflow/tensorflow/issues/28318 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): the eager call gives [[ True  True]]; the tf.function raises NotImplementedError: Cannot convert a symbolic tf.Tensor (clip_by_value:0) to a numpy array. This error may indicate that you're trying to pass a Tensor to a NumPy call, which is not supported.
import keras
import numpy as np
import tensorflow as tf

actor = keras.Sequential([keras.Input(shape=(5,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(2, activation="tanh")])


@tf.function
def choose_action(state):
    action = tf.clip_by_value(actor(state), -1.0, 1.0)
    usable = np.isfinite(action)  # expect: TFI012
    return action, usable


state = np.linspace(0.0, 1.0, 5, dtype="float32").reshape(1, 5)
print("eager:", choose_action.python_function(state)[1])
print("tf.function:", choose_action(state)[1])
