"""TFI012 (kapre==0.4.1 kapre/tflite_compatible_stft.py:25/27/33, _rdft_matrix called from the
@tf.function `_rdft(signal, dft_length)` with dft_length=self.n_fft, a Python int): a Python
int argument of a tf.function is NOT turned into a tensor; it is part of the trace key and stays
a plain int inside, so np.arange / np.outer on it work and give a NumPy constant.

    .venv/bin/python bench/precision/checks/python_int_into_tf_function_numpy.py
"""

import numpy as np
import tensorflow as tf


def helper(n):
    k = np.arange(0, n // 2 + 1)
    omega = -2.0 * np.pi / n * k
    return np.outer(omega, np.arange(0, n)).astype(np.float32)


@tf.function
def apply(signal, n):
    print("inside trace: type(n) =", type(n).__name__)
    mat = tf.constant(helper(n))
    return tf.matmul(signal, mat, transpose_b=True)


out = apply(tf.ones((2, 8)), 8)
print("output shape:", out.shape, "traces:", apply.experimental_get_tracing_count())
out = apply(tf.ones((2, 8)), 8)
print("second call with same int, traces:", apply.experimental_get_tracing_count())
try:
    apply(tf.ones((2, 8)), tf.constant(8))
except Exception as e:  # only a tensor argument would break it
    print("with a tensor argument instead:", type(e).__name__)
