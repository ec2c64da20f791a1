# Real-user hazard: a class whose number of points can change defines __len__ to return tf.shape(...)[0], a tensor; len() of it works eagerly (an eager tensor converts to an int), but in a tf.function the count is a symbolic tensor and Python's len() refuses it.
# After: https://github.com/GPflow/GPflow/issues/1578 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): the eager call gives 1.4142135623730951; the tf.function (after the set grows to 7 anchors) raises TypeError: 'SymbolicTensor' object cannot be interpreted as an integer (at the len() call)
import numpy as np
import tensorflow as tf


class AnchorSet:
    def __init__(self, anchors):
        self.anchors = tf.Variable(anchors, shape=(None, 2), trainable=False)

    def __len__(self):
        return tf.shape(self.anchors)[0]


def mean_anchor_norm(anchor_set):
    total = tf.reduce_sum(tf.norm(anchor_set.anchors, axis=1))
    return total / tf.cast(len(anchor_set), total.dtype)  # expect: NEW-len-returns-tensor


anchor_set = AnchorSet(np.ones((4, 2)))
print("eager:", float(mean_anchor_norm(anchor_set)))
compiled = tf.function(mean_anchor_norm)
anchor_set.anchors.assign(np.ones((7, 2)))
print("tf.function:", float(compiled(anchor_set)))
