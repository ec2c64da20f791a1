# Real-user hazard: per-variable gradient sums kept in a Python list and updated item by item inside a tf.range loop.
# After: https://github.com/tensorflow/tensorflow/issues/57756 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): InaccessibleTensorError: <tf.Tensor 'while/add:0'> is out of scope and cannot be used here
import tensorflow as tf


class MetaLearner(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.learner = tf.keras.layers.Dense(1)

    @tf.function
    def accumulate_grads(self, x, inner_steps):
        totals = [tf.zeros_like(v) for v in self.learner.trainable_variables]
        for _ in tf.range(inner_steps):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(self.learner(x) - 1.0))
            grads = tape.gradient(loss, self.learner.trainable_variables)
            for k in range(len(totals)):
                totals[k] = totals[k] + grads[k]  # expect: NEW-python-list-in-tensor-loop
        return totals


meta = MetaLearner()
meta.learner.build((None, 3))
print(meta.accumulate_grads(tf.ones([2, 3]), tf.constant(4)))
