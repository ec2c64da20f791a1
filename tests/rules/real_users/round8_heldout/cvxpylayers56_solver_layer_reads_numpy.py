# Real-user hazard: a differentiable-optimization layer hands its inputs to a NumPy solver, converting them with .numpy() (it only supports eager tensors); a Keras layer that calls it inside call() works on eager tensors, but building the model traces call with symbolic tensors.
# After: https://github.com/cvxpy/cvxpylayers/issues/56 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): called eagerly the layer projects a (3, 4) batch onto the non-negative orthant; model.build((300, 4)) raises AttributeError: 'SymbolicTensor' object has no attribute 'numpy'
import keras
import numpy as np
import tensorflow as tf


class NonNegativeProjection:
    """argmin_z ||z - x||^2 subject to z >= 0, solved in NumPy, with its gradient."""

    def __call__(self, x):
        @tf.custom_gradient
        def solve(x):
            values = x.numpy()  # expect: TFI012
            solution = np.maximum(values, 0.0)

            def grad(upstream):
                return upstream * tf.constant((solution > 0).astype(values.dtype))

            return tf.constant(solution), grad

        return solve(x)


class ProjectionLayer(keras.layers.Layer):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.projection = NonNegativeProjection()

    def call(self, inputs):
        return self.projection(inputs)


layer = ProjectionLayer()
print("eager:", layer(tf.random.normal((3, 4), seed=0)).numpy().min() >= 0)
model = keras.Sequential([ProjectionLayer(), keras.layers.Dense(2)])
model.build((300, 4))
