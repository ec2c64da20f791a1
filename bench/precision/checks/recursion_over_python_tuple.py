"""TFI019: a tf.function that calls itself on the elements of a Python tuple argument (a walk
over a structure). Prints the results: the recursion ends at trace time, one trace per
element signature.

    .venv/bin/python bench/precision/checks/recursion_over_python_tuple.py
"""

import tensorflow as tf


@tf.function
def pick(inputs, i):
    if type(inputs) is tuple:
        return tuple(pick(x, i) for x in inputs)
    return inputs[:, i]


print(pick(tf.ones((2, 3)), 1).shape)
print([t.shape for t in pick((tf.ones((2, 3)), tf.zeros((2, 3))), 1)])
