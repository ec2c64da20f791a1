"""TFI006: a tf.function method keeps its result on `self` for the next call to start from (a
warm start), as an iterative solver does. Prints what the second call starts from, and what a
retrace (a new Python float argument) does with the tensor the first trace left there.

    .venv/bin/python bench/precision/checks/warm_start_tensor_kept_on_self.py
"""

import tensorflow as tf


class Solver:
    def __init__(self):
        self.previous = None

    @tf.function
    def solve(self, b, damping: float):
        x = 1.0 * self.previous if self.previous is not None else tf.zeros_like(b)
        x = x + b * damping
        self.previous = x
        return x


solver = Solver()
b = tf.ones(2)
print("first call:", solver.solve(b, 0.5).numpy())
print("second call, same trace (warm start expected [1, 1]):", solver.solve(b, 0.5).numpy())
try:
    print("retrace:", solver.solve(b, 0.25).numpy())
except Exception as error:  # the retrace reads the first trace's tensor
    print("retrace fails:", type(error).__name__, str(error).splitlines()[0][:100])
