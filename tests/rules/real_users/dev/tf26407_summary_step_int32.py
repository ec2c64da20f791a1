# Real-user hazard: a tf.summary call inside a tf.function gets the int32 loop counter of tf.range as its step.
# After: https://github.com/tensorflow/tensorflow/issues/26407 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): ValueError: Tensor conversion requested dtype int64 for Tensor with dtype int32
import tempfile

import tensorflow as tf

writer = tf.summary.create_file_writer(tempfile.mkdtemp())
w = tf.Variable(3.0)


@tf.function
def fit(n):
    with writer.as_default():
        for step in tf.range(n):
            loss = tf.square(w)
            w.assign_sub(0.1 * w)
            tf.summary.scalar("loss", loss, step=step)  # expect: TFI005


fit(tf.constant(10))
writer.flush()
