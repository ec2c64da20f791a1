# Real-user hazard: a policy keeps its global timestep as a Python int, grows it by the batch size every step and passes it to the traced action function; each new value is a new trace that is kept, so memory leaks.
# After: https://github.com/ray-project/ray/issues/19233 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): 25 calls (100 env steps) trace _compute_actions 25 times, with 'triggered tf.function retracing' warnings from the 5th call on
import tensorflow as tf


class EpsilonGreedyPolicy:
    def __init__(self):
        self.q_model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(2)])
        self.global_timestep = 0

    @tf.function
    def _compute_actions(self, obs, timestep):
        epsilon = tf.maximum(0.05, 1.0 - tf.cast(timestep, tf.float32) / 1000.0)
        greedy = tf.argmax(self.q_model(obs), axis=-1)
        random_actions = tf.random.uniform(tf.shape(greedy), maxval=2, dtype=tf.int64)
        return tf.where(tf.random.uniform(tf.shape(greedy)) < epsilon, random_actions, greedy)

    def compute_actions(self, obs):
        actions = self._compute_actions(obs, self.global_timestep)  # expect: TFI004
        self.global_timestep += int(obs.shape[0])
        return actions


policy = EpsilonGreedyPolicy()
for _ in range(25):
    policy.compute_actions(tf.random.normal([4, 4]))
print("env steps:", policy.global_timestep, "traces:", policy._compute_actions.experimental_get_tracing_count())
