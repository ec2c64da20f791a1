# Real-user hazard: a tf.function method reads a tensor kept on self; another method replaces that tensor, but the traced graph keeps the old one.
# After: https://github.com/tensorflow/tensorflow/issues/44980 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): after set_matrix(2 * I) the tf.function still returns [[1, 1, 1]]; the same matmul run eagerly gives [[2, 2, 2]]
import tensorflow as tf


class Projector:
    def __init__(self):
        self.matrix = tf.eye(3)

    def set_matrix(self, matrix):
        self.matrix = matrix

    @tf.function
    def project(self, x):
        return tf.matmul(x, self.matrix)  # expect: TFI003


projector = Projector()
x = tf.ones([1, 3])
print("identity:", projector.project(x).numpy())
projector.set_matrix(2.0 * tf.eye(3))
print("after set_matrix(2 * I), graph:", projector.project(x).numpy(), "eager:", tf.matmul(x, projector.matrix).numpy())
