# Real-user hazard: in a tf.function, a name that holds a tf.Variable is rebound to the result of a sliced assign inside an if on a tensor; AutoGraph makes the if a tf.cond, whose outputs are tensors, so on the next loop iteration the name holds a tensor with no .assign.
# After: https://github.com/tensorflow/tensorflow/issues/38555 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): the eager call gives [0 7 2]; the tf.function raises AttributeError: 'SymbolicTensor' object has no attribute 'assign' (at the marked line, on the loop's second iteration: after the first tf.cond, budget is a tensor)
import numpy as np
import tensorflow as tf


def top_up(budget):
    for _ in range(3):
        if budget[0] > 4:
            budget = budget[0].assign(0)  # expect: NEW-variable-rebound-in-tensor-branch
            print("budget reset")
        else:
            budget = budget[0].assign(budget[0] + 3)
    return budget


print("eager:", top_up(tf.Variable(np.array([1, 7, 2]))).numpy())
print("tf.function:", tf.function(top_up)(tf.Variable(np.array([1, 7, 2]))).numpy())
