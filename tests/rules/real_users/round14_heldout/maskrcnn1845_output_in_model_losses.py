# Real-user hazard: compile code adds each named penalty layer's output to a functional model's losses unless it is already there, testing `output in model.losses`; the membership test compares symbolic Keras tensors with ==, which has no Python truth value, so the second penalty fails.
# After: https://github.com/matterport/Mask_RCNN/issues/1845 (pattern only; this code is ours)
# Confirmed on TF 2.21 (tf-keras): the first penalty is added ('added box_penalty'); the membership test for the second raises TypeError: Keras symbolic inputs/outputs do not implement `__len__` ... This error will also get raised if you try asserting a symbolic input/output directly. (with Keras 3 the loop stops earlier, at tf.reduce_mean of the first KerasTensor: ValueError: A KerasTensor cannot be used as input to a TensorFlow function)
import os

os.environ["TF_USE_LEGACY_KERAS"] = "1"
import tensorflow as tf
from tensorflow import keras

PENALTY_WEIGHTS = {"box_penalty": 1.0, "class_penalty": 0.5}

inputs = keras.Input(shape=(8,))
hidden = keras.layers.Dense(4, name="hidden")(inputs)
box_penalty = keras.layers.Lambda(lambda t: tf.reduce_mean(tf.square(t), axis=-1), name="box_penalty")(hidden)
class_penalty = keras.layers.Lambda(lambda t: tf.reduce_mean(tf.abs(t), axis=-1), name="class_penalty")(hidden)
model = keras.Model(inputs, [keras.layers.Dense(1)(hidden), box_penalty, class_penalty])

for name, weight in PENALTY_WEIGHTS.items():
    penalty = model.get_layer(name).output
    if penalty in model.losses:  # expect: NEW-keras-tensor-as-python-value
        continue
    model.add_loss(tf.reduce_mean(penalty) * weight)
    print("added", name)
print("penalties added:", len(model.losses))
