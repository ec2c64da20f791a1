# Real-user hazard: an echo-state reservoir cell rescales its recurrent matrix only when its leak rate changed, testing the leak variable against the last rate with a Python if in call; the RNN layer runs the cell on symbolic tensors in fit, where the comparison is a tensor, not a Python bool.
# After: https://github.com/francesco-mannella/Echo-State-Networks/issues/3 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): the eager cell step works ((1, 20)) and the model builds (the first symbolic call short-circuits on last_leak is None); fit raises OperatorNotAllowedInGraphError: Using a symbolic `tf.Tensor` as a Python `bool` is not allowed (in ReservoirCell.call, at the if)
import keras
import numpy as np
import tensorflow as tf


class ReservoirCell(keras.layers.Layer):
    def __init__(self, units, leak=0.3, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.state_size = units
        self.start_leak = leak
        self.last_leak = None

    def build(self, input_shape):
        self.leak = self.add_weight(shape=(), initializer=keras.initializers.Constant(self.start_leak), trainable=False)
        self.input_weights = self.add_weight(shape=(input_shape[-1], self.units), initializer="uniform", trainable=False)
        self.reservoir = self.add_weight(shape=(self.units, self.units), initializer="orthogonal", trainable=False)
        self.scale = self.add_weight(shape=(), initializer=keras.initializers.Constant(0.9), trainable=False)

    def call(self, inputs, states):
        if self.last_leak is None or self.leak != self.last_leak:  # expect: TFI013
            self.scale.assign((1.0 - self.leak) * 0.9)
            self.last_leak = float(self.start_leak)
        previous = states[0]
        current = (1.0 - self.leak) * previous + self.leak * tf.tanh(
            tf.matmul(inputs, self.input_weights) + tf.matmul(previous, self.reservoir * self.scale))
        return current, [current]


cell = ReservoirCell(20)
output, _ = cell(tf.ones((1, 1)), [tf.zeros((1, 20))])
print("eager cell step:", output.shape)

reservoir_model = keras.Sequential([
    keras.Input((None, 1)),
    keras.layers.RNN(ReservoirCell(20), return_sequences=True),
    keras.layers.Dense(1),
])
signal = np.sin(np.linspace(0, 20, 200)).reshape(1, 200, 1).astype("float32")
reservoir_model.compile(optimizer="adam", loss="mse")
reservoir_model.fit(signal[:, :-1], signal[:, 1:], epochs=1, verbose=0)
