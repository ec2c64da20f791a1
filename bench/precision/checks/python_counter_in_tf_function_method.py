"""TFI006: a `tf.function` method that counts its calls in a Python attribute
(`self.evaluation += 1`) that the caller then logs, as c3-toolset's optimal-control goal
functions do. Called five times on same-shaped parameters: the count is the number of traces.

    .venv/bin/python bench/precision/checks/python_counter_in_tf_function_method.py
"""
import tensorflow as tf


class Optimizer:
    def __init__(self):
        self.evaluation = 0

    @tf.function
    def goal_run(self, params):
        self.evaluation += 1
        return tf.reduce_sum(params ** 2)


optimizer = Optimizer()
for step in range(5):
    optimizer.goal_run(tf.constant([float(step), 1.0]))
print("calls: 5, evaluation counted:", optimizer.evaluation)
