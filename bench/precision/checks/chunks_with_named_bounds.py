"""A tf.function called on chunks of an array cut with bounds named in the loop (`a =
int(size * j)`, `b = int(size * j + size)`, `x[a:b]`) sees one shape for every full chunk and
another for the last, shorter one: two traces, not one per call. Prints the number of traces
after 10 chunks of 7 rows (the last has 3)."""
import numpy as np
import tensorflow as tf

traces = 0


@tf.function
def features(x):
    global traces
    traces += 1
    return tf.reduce_sum(x, axis=1)


rows, size = np.ones((66, 4), np.float32), 7
for j in range(int(np.ceil(len(rows) / size))):
    a = int(size * j)
    b = int(size * j + size)
    features(tf.convert_to_tensor(rows[a:b]))
print("calls:", int(np.ceil(len(rows) / size)), "traces:", traces)
