# Real-user hazard: an RL executor's tf.function policy receives the decaying exploration epsilon as a Python float; every new value is a new trace, and memory keeps growing.
# After: https://github.com/instadeepai/Mava/issues/346 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): 30 environment steps trace _policy 30 times, with 'triggered tf.function retracing' warnings
import tensorflow as tf


class Executor:
    def __init__(self):
        self.q_network = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(3)])

    @tf.function
    def _policy(self, observation, epsilon):
        q_values = self.q_network(observation)
        greedy = tf.argmax(q_values, axis=-1)
        explore = tf.random.uniform(tf.shape(greedy)) < epsilon
        random_action = tf.random.uniform(tf.shape(greedy), maxval=3, dtype=tf.int64)
        return tf.where(explore, random_action, greedy)


executor = Executor()
epsilon = 1.0
for _ in range(30):
    action = executor._policy(tf.random.normal([1, 4]), epsilon)  # expect: TFI004
    epsilon = max(0.05, epsilon * 0.95)
print("traces of _policy:", executor._policy.experimental_get_tracing_count())
