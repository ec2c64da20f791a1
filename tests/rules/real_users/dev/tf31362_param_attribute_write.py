# Real-user hazard: a tf.function bumps a counter attribute on the Python object it is passed; it runs only while tracing.
# After: https://github.com/tensorflow/tensorflow/issues/31362 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): stats.calls stays 1 after 5 calls
import tensorflow as tf


class Stats:
    def __init__(self):
        self.calls = 0


stats = Stats()


@tf.function
def scaled(x, s):
    s.calls += 1  # expect: TFI006
    return x * 2.0


for step in range(5):
    scaled(tf.constant(1.0), stats)
    print(step, stats.calls)
