"""A seed computed as a tensor and given to `tf.random.set_seed` inside a traced function: the
next `tf.random.normal` raises OperatorNotAllowedInGraphError (a symbolic tensor used as a
Python bool) while tracing, so nothing after it in that function runs in a graph. Eagerly the
same code runs.

    .venv/bin/python bench/precision/checks/tensor_seed_set_in_graph.py
"""
import tensorflow as tf


def projections(q):
    seed = tf.cast(tf.math.ceil(tf.math.abs(tf.reduce_sum(q) * 1e8)), tf.int32)
    tf.random.set_seed(seed=seed)
    return tf.random.normal(shape=[4, 4])


x = tf.ones([3, 4])
print("eager:", projections(x).shape)
try:
    tf.function(projections)(x)
    print("graph: ran")
except Exception as error:
    print("graph:", type(error).__name__)
