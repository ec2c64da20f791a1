"""A list comprehension over `range(tf.shape(x)[1])` in a method that a tf.function calls:
AutoGraph converts `for` statements, not comprehensions, so `range` gets a symbolic tensor and
tracing raises OperatorNotAllowedInGraphError (TF 2.21), even when the shape is static."""
import tensorflow as tf


class Scorer:
    def per_column(self, items):
        return tf.stack([tf.gather(items, i, axis=1) * 2.0 for i in range(tf.shape(items)[1])],
                        axis=-1)

    @tf.function
    def loss(self, items):
        return tf.reduce_sum(self.per_column(items))


scorer = Scorer()  # kept: a tf.function method holds its instance weakly
try:
    print(scorer.loss(tf.ones((4, 3))).numpy())
except Exception as error:  # we print what happens
    print(type(error).__name__, str(error).strip().splitlines()[-1])
