"""A tf.function with a tensor `if`, retraced once for a new shape, and a Dataset.map
function: the breakpoint lines are marked `# stop: NAME`."""

import tensorflow as tf


@tf.function
def step(x):
    if tf.reduce_sum(x) > 0:  # stop: if  # noqa: SIM108 - a line per breakpoint
        y = x * 2  # stop: then
    else:
        y = x - 1
    return y  # stop: return


def double(v):
    return v * 2  # stop: map


print(step(tf.ones(3)).numpy())
print(step(tf.ones(3)).numpy())
print(step(tf.ones(4)).numpy())
print(list(tf.data.Dataset.range(3).map(double).as_numpy_iterator()))
