# Real-user hazard: a tf.function updates a module-level tf.Variable with `global total; total = total + x` instead of total.assign_add(x); the name is rebound to a tensor of the traced graph, so the variable is never updated and the module now holds a graph tensor.
# After: https://github.com/tensorflow/tensorflow/issues/30768 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): three calls with 1.0, 2.0, 3.0 return 1.0, 2.0, 3.0 (never a running total), the variable stays 0.0 and the module-level name total is left holding Tensor("add:0", shape=(), dtype=float32), a tensor of the traced graph; no error is raised
import tensorflow as tf

total = tf.Variable(0.0)
counter = total


@tf.function
def add_to_total(x):
    global total
    total = total + x  # expect: TFI006
    return total


for value in (1.0, 2.0, 3.0):
    print("returned:", add_to_total(tf.constant(value)))
print("variable:", counter.numpy(), "module-level total:", total)
