# Real-user hazard: a heat-balance function used in a Lambda layer is a tf.function(autograph=False) with a Python if on a tensor.
# After: https://github.com/tensorflow/tensorflow/issues/60604 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): predict raises OperatorNotAllowedInGraphError: Using a symbolic tf.Tensor as a Python bool is not allowed
import numpy as np
import tensorflow as tf


@tf.function(autograph=False, reduce_retracing=True)
def heat_balance(inputs):
    temperature = inputs[:, 0:1]
    flow = inputs[:, 1:2]
    if tf.reduce_mean(temperature) > 20.0:  # expect: TFI013
        excess = temperature - 20.0
        heat = flow * excess
    else:
        heat = tf.zeros_like(flow)
    return heat


x_in = tf.keras.Input(shape=(4,))
hidden = tf.keras.layers.Dense(2)(x_in)
out = tf.keras.layers.Lambda(heat_balance, output_shape=(1,), name="heat_balance")(hidden)
model = tf.keras.Model(x_in, out)
print(model.predict(np.random.rand(5, 4), verbose=0))
