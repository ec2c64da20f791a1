"""A `tf.function` that a layer's constructor calls with its hyperparameters (Python ints)
gets them as Python values while it is traced, not as tensors: NumPy on them works. Prints the
shape of a sinusoidal position table made with `np.arange` on both parameters inside the
`tf.function` (no error: (1, 50, 16)), and how many times it traced for two sizes (one trace
per distinct value, a retrace cost only)."""
import numpy as np
import tensorflow as tf

traces = 0


@tf.function
def position_table(positions, width):
    global traces
    traces += 1
    angles = np.arange(positions)[:, np.newaxis] / np.power(
        10000, (2 * (np.arange(width)[np.newaxis, :] // 2)) / np.float32(width))
    angles[:, 0::2] = np.sin(angles[:, 0::2])
    angles[:, 1::2] = np.cos(angles[:, 1::2])
    return tf.cast(angles[np.newaxis, ...], tf.float32)


class Encoder(tf.keras.layers.Layer):
    def __init__(self, positions, width):
        super().__init__()
        self.width = width
        self.table = position_table(positions, self.width)


print("table:", tuple(Encoder(50, 16).table.shape), "then", tuple(Encoder(20, 16).table.shape))
print("traces:", traces)
