# Real-user hazard: a PPO actor feeds the advantage and the old policy's probabilities as extra model inputs and builds the clipped loss in a factory that closes over those Input tensors; compile accepts it, but fit calls the loss with real batches while the closed-over tensors are symbolic KerasTensors of the functional model.
# After: https://github.com/ChintanTrivedi/rl-bot-football/issues/2 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): compile succeeds; fit raises ValueError: Tried to convert 'input' to a tensor and failed. Error: A KerasTensor cannot be used as input to a TensorFlow function (in the loss, at the line with the old probabilities; the advantage line would fail next)
import keras
import numpy as np
import tensorflow as tf

observation_size, action_count = 6, 3


def clipped_surrogate_loss(advantage, old_probs, clip=0.2):
    def loss(actions_taken, new_probs):
        new_taken = tf.reduce_sum(actions_taken * new_probs, axis=-1)
        old_taken = tf.reduce_sum(actions_taken * old_probs, axis=-1)  # expect: TFI015
        ratio = new_taken / (old_taken + 1e-8)
        gain = tf.squeeze(advantage, axis=-1)  # expect: TFI015
        return -tf.reduce_mean(tf.minimum(ratio * gain, tf.clip_by_value(ratio, 1 - clip, 1 + clip) * gain))

    return loss


observation = keras.Input((observation_size,))
advantage_in = keras.Input((1,))
old_probs_in = keras.Input((action_count,))
hidden = keras.layers.Dense(16, activation="tanh")(observation)
policy = keras.layers.Dense(action_count, activation="softmax")(hidden)
actor = keras.Model([observation, advantage_in, old_probs_in], policy)
actor.compile(optimizer="adam", loss=clipped_surrogate_loss(advantage_in, old_probs_in))

steps = 64
observations = np.random.rand(steps, observation_size).astype("float32")
advantages = np.random.randn(steps, 1).astype("float32")
old_probs = np.full((steps, action_count), 1 / action_count, dtype="float32")
actions = np.eye(action_count, dtype="float32")[np.random.randint(action_count, size=steps)]
actor.fit([observations, advantages, old_probs], actions, batch_size=16, epochs=1, verbose=0)
