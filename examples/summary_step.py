"""Seed 003 §2.2: Python ints as a tf.function argument retrace every step, and an int32 step
tensor breaks tf.summary."""

import tempfile

import tensorflow as tf

writer = tf.summary.create_file_writer(tempfile.mkdtemp())


@tf.function
def log_metric(step):
    with writer.as_default():
        tf.summary.scalar("metric", 0.5, step=step)


for step in range(20):
    log_metric(step)
print("traces:", log_metric.experimental_get_tracing_count())

log_metric(tf.constant(20))
