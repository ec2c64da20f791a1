"""A NumPy-library function given a functional KerasTensor, on Keras 3 and on tf-keras (run with
TF_USE_LEGACY_KERAS=1): neither wraps it in a layer as tf-keras does TensorFlow ops."""
import numpy as np
import tensorflow as tf

inputs = tf.keras.Input((8,))
hidden = tf.keras.layers.Dense(4)(inputs)
try:
    np.tanh(hidden)
    print(tf.keras.__name__, "np.tanh on a KerasTensor: accepted")
except Exception as error:
    print(tf.keras.__name__, "np.tanh on a KerasTensor:", type(error).__name__, str(error).splitlines()[0][:150])
