# Real-user hazard: an actor-critic agent picks every action by calling model.predict on the single current observation, inside the environment-step loop; RAM use grows episode after episode and each step is slow.
# After: https://github.com/inoryy/tensorflow2-deep-reinforcement-learning/issues/6 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): 400 steps: ~55-67 ms per model.predict call (two runs) against ~1.3-1.6 ms for model(x, training=False); max RSS 571-572 MB after 100 steps, 575 MB after 400
import resource
import time

import numpy as np
import tensorflow as tf

obs_in = tf.keras.Input((4,))
hidden = tf.keras.layers.Dense(32, activation="relu")(obs_in)
actor_critic = tf.keras.Model(obs_in, [tf.keras.layers.Dense(2)(hidden), tf.keras.layers.Dense(1)(hidden)])


def choose_action(observation):
    logits, value = actor_critic.predict(observation[None, :], verbose=0)  # expect: TFI023
    action = tf.random.categorical(logits, 1)[0, 0]
    return int(action), float(value[0, 0])


rng = np.random.default_rng(0)
state = rng.normal(size=4).astype("float32")
start = time.time()
for step in range(400):
    action, value = choose_action(state)
    state = (state + rng.normal(scale=0.1, size=4)).astype("float32")
    if step % 100 == 99:
        print(step + 1, "steps, max RSS MB:", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)
per_step = (time.time() - start) / 400
start = time.time()
for _ in range(400):
    actor_critic(state[None, :], training=False)
print(f"predict {per_step * 1000:.1f} ms per step, model(x) {(time.time() - start) / 400 * 1000:.1f} ms")
