"""TFI012: `.numpy()` on a tf.Variable and on a computed tensor inside a tf.function.

    .venv/bin/python bench/precision/checks/variable_numpy_in_function.py
"""

import tensorflow as tf

counter = tf.Variable(0)


@tf.function
def read_variable():
    counter.assign_add(1)
    return counter.numpy()


@tf.function
def read_tensor(x):
    return (x * 2).numpy()


for fn, args in ((read_variable, ()), (read_tensor, (tf.constant(1.0),))):
    try:
        print(fn.__name__, fn(*args))
    except Exception as error:  # we print what happens
        print(fn.__name__, "raises", type(error).__name__, str(error).splitlines()[0][:90])
