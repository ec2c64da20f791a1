# Real-user hazard: a tf.data map function counts the examples it decodes in a module-level Python int.
# After: https://github.com/tensorflow/tensorflow/issues/28841 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): 50 examples iterated, decode counter 1 (the map function ran once, while tracing)
import numpy as np
import tensorflow as tf

decoded = 0


def decode(record):
    global decoded
    decoded += 1  # expect: TFI006
    return tf.cast(record, tf.float32) / 255.0


images = np.random.randint(0, 256, size=(50, 4, 4)).astype("uint8")
dataset = tf.data.Dataset.from_tensor_slices(images).map(decode)
seen = sum(1 for _ in dataset)
print("examples iterated:", seen, "decode counter:", decoded)
