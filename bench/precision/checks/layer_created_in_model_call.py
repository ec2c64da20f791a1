"""TFI008: a layer whose `call` makes a new `Dense` layer and applies it, inside a subclassed
model. Prints whether two eager calls on the same input agree (each makes new random weights)
and what `fit` does.

    .venv/bin/python bench/precision/checks/layer_created_in_model_call.py
    TF_USE_LEGACY_KERAS=1 .venv/bin/python bench/precision/checks/layer_created_in_model_call.py
"""

import numpy as np
import tensorflow as tf

keras = tf.keras


class Block(keras.layers.Layer):
    def call(self, inputs):
        return keras.layers.Dense(4)(inputs)


class Net(keras.Model):
    def __init__(self):
        super().__init__()
        self.block = Block()
        self.out = keras.layers.Dense(1)

    def call(self, inputs):
        return self.out(self.block(inputs))


net = Net()
x = np.ones((8, 3), "float32")
print("two eager calls differ:", not np.allclose(net(x).numpy(), net(x).numpy()))
net.compile(optimizer="sgd", loss="mse")
try:
    net.fit(x, np.ones((8, 1)), epochs=2, verbose=0)
    print("fit ran")
except Exception as error:
    print("fit fails:", type(error).__name__, str(error).splitlines()[0][:150])
