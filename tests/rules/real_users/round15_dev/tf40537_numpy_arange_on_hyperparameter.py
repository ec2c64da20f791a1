# Real-user hazard: a tf.function is given its hyper-parameters as a NumPy array and builds a grid with np.arange from one of them; tf.function turns the array argument into a tensor, so the NumPy call gets a symbolic tensor and tracing fails, although the same function runs eagerly.
# After: https://github.com/tensorflow/tensorflow/issues/40537 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): the eager call gives [ 0.  3.  6.  9. 12.]; the tf.function raises NotImplementedError: Cannot convert a symbolic tf.Tensor (strided_slice:0) to a numpy array
import numpy as np
import tensorflow as tf


@tf.function
def scaled_grid(settings, offsets):
    points = settings[0]
    grid = np.arange(points)  # expect: TFI012
    return tf.cast(grid, tf.float32) * tf.cast(settings[1], tf.float32) + offsets


settings = np.array([5, 3])
offsets = tf.zeros(5)
print("eager:", scaled_grid.python_function(settings, offsets).numpy())
print("tf.function:", scaled_grid(settings, offsets).numpy())
