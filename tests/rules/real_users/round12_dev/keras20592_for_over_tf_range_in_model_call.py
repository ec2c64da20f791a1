# Real-user hazard: a Keras 3 model's call loops `for _ in tf.range(n)`; Keras 3 runs call without AutoGraph, so when the model is called from a tf.function the loop iterates over a symbolic tensor and fails (eagerly it works).
# After: https://github.com/keras-team/keras/issues/20592 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): called eagerly the model gives [2.25 2.75]; called from the tf.function it raises OperatorNotAllowedInGraphError: Exception encountered when calling RepeatedShift.call(). Iterating over a symbolic `tf.Tensor` is not allowed
import keras
import tensorflow as tf


class RepeatedShift(keras.Model):
    def call(self, values):
        for _ in tf.range(3):  # expect: TFI013
            values = values * 0.5 + 1.0
        return values


model = RepeatedShift()
print("eager:", model(tf.constant([4.0, 8.0])).numpy())


@tf.function
def serve(values):
    return model(values)


print("tf.function:", serve(tf.constant([4.0, 8.0])).numpy())
