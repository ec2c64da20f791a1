# Real-user hazard: a deep-Q agent chooses each movement with model.predict on the current observation (batch of one), once per environment step of an episode; predict's per-call setup makes the agent far slower than calling the model.
# After: https://github.com/Grid2op/l2rpn-baselines/pull/21 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): 300 movements: ~43-87 ms per model.predict call (two runs) against ~0.9 ms for model(x, training=False)
import time

import numpy as np
import tensorflow as tf


class GridQNetwork:
    def __init__(self, observation_size, action_size):
        self.action_size = action_size
        self.model = tf.keras.Sequential([
            tf.keras.Input((observation_size,)),
            tf.keras.layers.Dense(64, activation="relu"),
            tf.keras.layers.Dense(action_size),
        ])

    def predict_movement(self, observation, epsilon, rng):
        q_values = self.model.predict(observation, batch_size=1, verbose=0)  # expect: TFI023
        if rng.random() < epsilon:
            return int(rng.integers(self.action_size)), q_values
        return int(np.argmax(q_values[0])), q_values


agent = GridQNetwork(observation_size=40, action_size=12)
rng = np.random.default_rng(5)
observation = rng.normal(size=(1, 40)).astype("float32")
start = time.time()
for _ in range(300):
    action, _ = agent.predict_movement(observation, epsilon=0.1, rng=rng)
    observation = observation + rng.normal(scale=0.05, size=(1, 40)).astype("float32")
per_step = (time.time() - start) / 300
start = time.time()
for _ in range(300):
    agent.model(observation, training=False)
print(f"predict {per_step * 1000:.1f} ms per movement, model(x) {(time.time() - start) / 300 * 1000:.1f} ms")
