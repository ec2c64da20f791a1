"""TFI018 / TFI004: a NumPy scalar (here `np.max(...)`, a numpy.int64) passed to a tf.function
becomes a tensor: one trace for every value, and `for _ in range(n)` over it is an AutoGraph
while loop, not a Python loop unrolled n times.

    .venv/bin/python bench/precision/checks/numpy_scalar_argument.py
"""

import numpy as np
import tensorflow as tf

seen = []


@tf.function
def loop(steps):
    seen.append(type(steps).__name__)
    total = tf.constant(0.0)
    for _ in range(steps):
        total += 1.0
    return total


for n in (np.max((5, 1)), np.max((7, 1)), np.max((9, 1))):
    print(type(n).__name__, int(n), float(loop(n)))
print("argument seen while tracing:", seen, "traces:", loop.experimental_get_tracing_count())
