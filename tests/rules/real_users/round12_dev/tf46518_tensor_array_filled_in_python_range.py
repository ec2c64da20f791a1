# Real-user hazard: a tf.function fills a TensorArray in a Python `for i in range(n)` loop with a large constant bound; a loop over a Python range is not turned into a graph loop, so every iteration is copied into the graph and the first call spends seconds tracing what a `tf.range` loop traces at once.
# After: https://github.com/tensorflow/tensorflow/issues/46518 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): the unrolled function's first call takes 9.1 s and its graph has 15,007 ops; the same loop over tf.range traces in 0.09 s with 23 ops (both give 1499.5 as the last value)
import time

import tensorflow as tf

NUM_TERMS = 3000


@tf.function
def partial_sums_unrolled(rate):
    sums = tf.TensorArray(tf.float32, size=NUM_TERMS)
    for k in range(NUM_TERMS):  # expect: TFI018
        sums = sums.write(k, rate * tf.cast(k, tf.float32))
    return sums.stack()


@tf.function
def partial_sums_graph_loop(rate):
    sums = tf.TensorArray(tf.float32, size=NUM_TERMS)
    for k in tf.range(NUM_TERMS):
        sums = sums.write(k, rate * tf.cast(k, tf.float32))
    return sums.stack()


for fn in (partial_sums_unrolled, partial_sums_graph_loop):
    start = time.perf_counter()
    result = fn(tf.constant(0.5))
    seconds = time.perf_counter() - start
    ops = len(fn.get_concrete_function(tf.constant(0.5)).graph.get_operations())
    print(fn.__name__, f"first call {seconds:.2f} s,", ops, "graph ops, last value", float(result[-1]))
