# Real-user hazard: an RL agent checks whether a functional model has several outputs with len(model.output).
# After: https://github.com/keras-rl/keras-rl/issues/348 (pattern only; this code is ours)
# Confirmed on TF 2.21 (tf-keras): TypeError: Keras symbolic inputs/outputs do not implement `__len__` (Keras 3 KerasTensors have no __len__, so the hasattr guard skips the check there: not reproducible with Keras 3)
import os

os.environ["TF_USE_LEGACY_KERAS"] = "1"
import tensorflow as tf


class ActorAgent:
    def __init__(self, actor):
        if hasattr(actor.output, "__len__") and len(actor.output) > 1:  # expect: NEW-keras-tensor-as-python-value
            raise ValueError("the actor must have a single output")
        self.actor = actor


observation = tf.keras.Input(shape=(6,))
hidden = tf.keras.layers.Dense(16, activation="relu")(observation)
action = tf.keras.layers.Dense(2, activation="tanh")(hidden)
agent = ActorAgent(tf.keras.Model(observation, action))
print("agent ready")
