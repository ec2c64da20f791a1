# Real-user hazard: a Keras loss calls a NumPy-style distance routine (written for arrays) that sizes its input with len(); fit passes symbolic tensors.
# After: https://github.com/GUDHI/gudhi-devel/issues/530 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): the loss works on eager tensors (it returns a number); fit raises TypeError: len is not well defined for a symbolic Tensor (data_1:0). Please call `x.shape` rather than `len(x)` for shape information.
import numpy as np
import tensorflow as tf


def matched_point_distance(diagram_a, diagram_b):
    n = len(diagram_a)  # expect: NEW-len-of-symbolic-tensor
    total = 0.0
    for i in range(n):
        total += tf.reduce_sum(tf.square(diagram_a[i] - diagram_b[i]))
    return total / n


def diagram_loss(y_true, y_pred):
    return matched_point_distance(y_true, y_pred)


model = tf.keras.Sequential([tf.keras.Input(shape=(6,)), tf.keras.layers.Dense(8), tf.keras.layers.Reshape((4, 2))])
targets = np.random.rand(16, 4, 2).astype("float32")
print("eager loss:", float(diagram_loss(tf.constant(targets[:4]), model(np.random.rand(4, 6)))))
model.compile(optimizer="sgd", loss=diagram_loss)
model.fit(np.random.rand(16, 6), targets, batch_size=4, epochs=1, verbose=0)
