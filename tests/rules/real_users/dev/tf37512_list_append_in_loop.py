# Real-user hazard: tensors appended to a Python list inside a tf.range loop of a tf.function are used after the loop.
# After: https://github.com/tensorflow/tensorflow/issues/37512 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): InaccessibleTensorError: <tf.Tensor 'while/Mean:0'> is out of scope and cannot be used here
import tensorflow as tf


@tf.function
def running_features(frames):
    outputs = []
    for i in tf.range(tf.shape(frames)[0]):
        outputs.append(tf.reduce_mean(frames[i]))  # expect: NEW-python-list-in-tensor-loop
    return tf.stack(outputs)


print(running_features(tf.random.uniform([6, 3])))
