"""TFI013 / TFI012: a Keras 3 layer whose `call` branches on `tf.rank(inputs) == 2`, reads
`int(tf.reduce_max(t))` of a computed tensor, or tests `tf.shape(t)[0] < 1` in a helper it
calls (as kdp's AutoLagSelectionLayer and FFTFeatureLayer do). Called eagerly the tensors are
concrete and all three work; Keras 3 does not AutoGraph-convert `call`, so in `predict`/`fit`
or a `tf.function` each one fails. (Functional construction succeeds when the layer defines
`compute_output_shape`, which hides the problem until the model runs.)

Observed on TF 2.21 (Keras 3.15): eager: ok for all three; in predict and in tf.function:
rank_branch -> OperatorNotAllowedInGraphError ("Using a symbolic `tf.Tensor` as a Python
`bool`"), int_of_tensor -> TypeError ("int() argument must be ... not 'SymbolicTensor'"),
shape_test_in_helper -> OperatorNotAllowedInGraphError.

    .venv/bin/python bench/precision/checks/tensor_as_python_value_in_keras3_layer_call.py
"""

import keras
import numpy as np
import tensorflow as tf


class RankBranch(keras.layers.Layer):
    def call(self, inputs):
        if tf.rank(inputs) == 2:
            return inputs * 2.0
        return inputs

    def compute_output_shape(self, input_shape):
        return input_shape


class IntOfTensor(keras.layers.Layer):
    def call(self, inputs):
        picks = tf.math.top_k(tf.reduce_mean(inputs, axis=0), k=2).indices + 1
        largest = int(tf.reduce_max(picks))
        return inputs[:, largest:]

    def compute_output_shape(self, input_shape):
        return (input_shape[0], None)


class ShapeTestInHelper(keras.layers.Layer):
    def pick(self, scores):
        chosen = tf.where(scores > 0.5)
        if tf.shape(chosen)[0] < 1:
            chosen = tf.zeros([1, 1], tf.int64)
        return chosen

    def call(self, inputs):
        chosen = self.pick(tf.reduce_mean(inputs, axis=0))
        return inputs + tf.cast(tf.reduce_sum(chosen), inputs.dtype)

    def compute_output_shape(self, input_shape):
        return input_shape


def outcome(run, *args):
    try:
        run(*args)
        return "ok"
    except (TypeError, tf.errors.OperatorNotAllowedInGraphError) as error:
        return type(error).__name__


def run_in_function(layer, x):
    return tf.function(layer)(tf.constant(x))


x = np.random.rand(8, 6).astype("float32")
for name, make in [
    ("rank_branch", RankBranch),
    ("int_of_tensor", IntOfTensor),
    ("shape_test_in_helper", ShapeTestInHelper),
]:
    eager = outcome(make(), x)
    inputs = keras.Input((6,))
    model = keras.Model(inputs, make()(inputs))
    predicted = outcome(model.predict, x)
    function = outcome(run_in_function, make(), x)
    print(f"{name}: eager {eager}; predict {predicted}; tf.function {function}")
