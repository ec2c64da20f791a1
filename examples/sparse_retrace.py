"""Seed 003 §4.1: SparseTensors of varying dense_shape retrace a tf.function."""

import tensorflow as tf


@tf.function
def total(sparse):
    return tf.sparse.reduce_sum(sparse)


for n in range(3, 8):
    eye = tf.sparse.from_dense(tf.eye(n))
    total(eye)
print("traces:", total.experimental_get_tracing_count())
