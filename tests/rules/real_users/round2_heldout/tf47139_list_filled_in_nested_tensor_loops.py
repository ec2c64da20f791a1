# Real-user hazard: pairwise scores collected in a Python list by nested loops over the rows of two tensors in a tf.function.
# After: https://github.com/tensorflow/tensorflow/issues/47139 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): InaccessibleTensorError: <tf.Tensor 'while/while/Sum:0'> is out of scope and cannot be used here
import tensorflow as tf


@tf.function
def pairwise_dot(queries, keys):
    scores = []
    for q in queries:
        for k in keys:
            scores.append(tf.reduce_sum(q * k))  # expect: TFI020
    return tf.stack(scores)


print(pairwise_dot(tf.ones([2, 3]), tf.ones([4, 3])))
