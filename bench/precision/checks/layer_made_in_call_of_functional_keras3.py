"""TFI008: a Keras 3 layer whose `call` makes a new `Embedding` and applies it (a position
embedding), used in a functional model. Prints what `predict` and `fit` do: the traced step
makes the embedding's variables anew.

    .venv/bin/python bench/precision/checks/layer_made_in_call_of_functional_keras3.py
"""

import keras
import numpy as np
from keras import layers, ops


class PositionEmbedding(layers.Layer):
    def call(self, tokens):
        positions = ops.expand_dims(ops.arange(0, ops.shape(tokens)[1]), axis=0)
        return layers.Embedding(input_dim=ops.shape(tokens)[1],
                                output_dim=ops.shape(tokens)[-1])(positions)


inputs = keras.Input((5, 3))
outputs = layers.Dense(1)(inputs + PositionEmbedding()(inputs))
model = keras.Model(inputs, outputs)
x = np.ones((2, 5, 3), "float32")
print("trainable weights:", [w.path for w in model.trainable_weights])
model.compile("sgd", "mse")
for name, run in (("predict", lambda: model.predict(x, verbose=0)),
                  ("fit", lambda: model.fit(x, np.ones((2, 5, 1)), epochs=2, verbose=0))):
    try:
        run()
        print(name, "ran")
    except Exception as error:  # what it raises, the message's last line that says why
        print(name, "fails:", type(error).__name__,
              [line for line in str(error).splitlines() if "tf.Variable" in line][:1])
