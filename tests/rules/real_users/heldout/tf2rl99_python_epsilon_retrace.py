# Real-user hazard: an agent's tf.function action step is called with a decaying Python float epsilon, one new trace per value.
# After: https://github.com/keiohta/tf2rl/issues/99 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): traced 20 times in 20 calls, with 'triggered tf.function retracing' warnings
import numpy as np
import tensorflow as tf


class DQN:
    def __init__(self, n_actions=3):
        self.q_func = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(n_actions)])
        self.n_actions = n_actions
        self.epsilon = 1.0

    def get_action(self, state):
        self.epsilon = max(0.05, self.epsilon * 0.99)
        return self._act(tf.constant(state[None], tf.float32), self.epsilon)  # expect: TFI004

    @tf.function
    def _act(self, state, epsilon):
        greedy = tf.argmax(self.q_func(state), axis=1)
        explore = tf.random.uniform([]) < epsilon
        return tf.where(explore, tf.random.uniform([1], 0, self.n_actions, tf.int64), greedy)


agent = DQN()
for _ in range(20):
    agent.get_action(np.random.rand(4))
print("traces:", agent._act.experimental_get_tracing_count())
