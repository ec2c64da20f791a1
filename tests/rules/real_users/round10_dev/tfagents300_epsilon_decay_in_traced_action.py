# Real-user hazard: an epsilon-greedy policy counts its steps and decays its exploration rate in Python inside its action method; the collect loop runs that method as a tf.function, so the counter and the decay run once, when it is traced, and the traced policy keeps exploring at the starting rate.
# After: https://github.com/tensorflow/agents/issues/300 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): called eagerly for 300 steps the policy counts 300 steps, epsilon reaches 0.010 and 0.99 of the last 200 actions are greedy; run as a tf.function it counts 1 step, epsilon stays 1.000 and only 0.25 of the last 200 actions are greedy (uniformly random)
import numpy as np
import tensorflow as tf


class DecayingGreedyPolicy:
    def __init__(self, q_values, epsilon=1.0, decay_every=10, decay=0.5):
        self.q_values = tf.constant(q_values)
        self.epsilon = epsilon
        self.decay_every = decay_every
        self.decay = decay
        self.steps = 0

    def action(self, state):
        self.steps += 1  # expect: TFI006
        if self.steps % self.decay_every == 0:
            self.epsilon = max(0.01, self.epsilon * self.decay)
        greedy = tf.argmax(tf.gather(self.q_values, state), output_type=tf.int32)
        random_action = tf.random.uniform((), 0, 4, dtype=tf.int32)
        return tf.where(tf.random.uniform(()) < self.epsilon, random_action, greedy)


q_values = np.tile(np.array([[0.0, 0.1, 1.0, 0.2]], dtype="float32"), (5, 1))
for traced in (False, True):
    policy = DecayingGreedyPolicy(q_values)
    act = tf.function(policy.action) if traced else policy.action
    actions = [int(act(tf.constant(step % 5))) for step in range(300)]
    greedy_share = np.mean(np.array(actions[100:]) == 2)
    print(f"traced={traced}: steps counted {policy.steps}, epsilon {policy.epsilon:.3f}, greedy share of the last 200 actions {greedy_share:.2f}")
