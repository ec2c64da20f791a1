# Real-user hazard: a tf.function calls itself to split its input in halves until a small block is left (a hand-written recursive transform); tf.function does not support recursion: the size test on a tensor becomes a tf.cond that traces both branches, so the small-block branch is traced with the full input and the trace fails, although the same recursion runs eagerly.
# After: https://github.com/tensorflow/tensorflow/issues/45279 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): the eager run (with run_functions_eagerly) gives 16 values; the tf.function raises ValueError: Dimensions must be equal, but are 16 and 4 for '{{node cond/MatMul}} = MatMul[...]' with input shapes: [1,16], [4,4] (the size test became a tf.cond, whose small-block branch was traced with the full input)
import numpy as np
import tensorflow as tf

BLOCK = 4
MIXER = tf.constant(np.arange(BLOCK * BLOCK, dtype="float32").reshape(BLOCK, BLOCK) / 10.0)


def mix_block(signal):
    return tf.reshape(tf.matmul(signal[None, :], MIXER), [-1])


@tf.function
def halve_and_mix(signal):
    if tf.size(signal) <= BLOCK:
        return mix_block(signal)
    evens = halve_and_mix(signal[::2])  # expect: TFI019
    odds = halve_and_mix(signal[1::2])
    return tf.concat([evens + odds, evens - odds], axis=0)


signal = tf.range(16, dtype=tf.float32)
tf.config.run_functions_eagerly(True)
print("eager:", halve_and_mix(signal).numpy())
tf.config.run_functions_eagerly(False)
print("tf.function:", halve_and_mix(signal).numpy())
