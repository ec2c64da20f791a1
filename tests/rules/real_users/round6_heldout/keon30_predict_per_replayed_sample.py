# Real-user hazard: a DQN agent replays its minibatch one transition at a time, calling model.predict (and fit) on a single row per transition; each predict builds its data pipeline for one row, and training crawls ("very slow") compared with one batched call.
# After: https://github.com/keon/deep-q-learning/pull/30 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): 5 replays of 32 transitions: ~227 ms per transition with one predict and one fit per row against ~13 ms per transition for the same replay done with two predicts and one fit per minibatch
import random
import time
from collections import deque

import keras
import numpy as np


class GridAgent:
    def __init__(self, state_size, action_count):
        self.action_count = action_count
        self.memory = deque(maxlen=500)
        self.discount = 0.9
        self.model = keras.Sequential([
            keras.Input((state_size,)),
            keras.layers.Dense(16, activation="relu"),
            keras.layers.Dense(action_count),
        ])
        self.model.compile(optimizer="adam", loss="mse")

    def replay(self, batch_size):
        for state, action, reward, next_state, done in random.sample(self.memory, batch_size):
            both = self.model.predict(np.vstack([state, next_state]), verbose=0)  # expect: NEW-predict-in-loop
            target = both[:1].copy()
            target[0, action] = reward if done else reward + self.discount * np.max(both[1])
            self.model.fit(state, target, epochs=1, verbose=0)

    def replay_batched(self, batch_size):
        batch = random.sample(self.memory, batch_size)
        states = np.vstack([item[0] for item in batch])
        next_states = np.vstack([item[3] for item in batch])
        targets = self.model.predict(states, verbose=0)
        following = self.model.predict(next_states, verbose=0)
        for row, (_, action, reward, _, done) in enumerate(batch):
            targets[row, action] = reward if done else reward + self.discount * np.max(following[row])
        self.model.fit(states, targets, epochs=1, verbose=0)


agent = GridAgent(state_size=4, action_count=3)
for _ in range(200):
    state = np.random.rand(1, 4).astype("float32")
    agent.memory.append((state, random.randrange(3), random.random(), np.random.rand(1, 4).astype("float32"), random.random() < 0.1))

start = time.perf_counter()
for _ in range(5):
    agent.replay(32)
per_row = (time.perf_counter() - start) / (5 * 32) * 1000
start = time.perf_counter()
for _ in range(5):
    agent.replay_batched(32)
per_batch = (time.perf_counter() - start) / (5 * 32) * 1000
print(f"{per_row:.1f} ms per transition replayed row by row, {per_batch:.1f} ms per transition replayed as a batch")
