"""TFI006: an Embedding subclass whose `call` rebinds its weight attribute to a tensor,
`self.embeddings = stop_gradient(self.embeddings * (1 - m)) + self.embeddings * m` (the
"train only some rows" trick from Keras 2.3's one-graph days, as langml's PartialEmbedding
does), run with tf-keras, the Keras 2 that TF 2.x users get through tf.keras. The assignment
happens at each trace, not at each step: functional construction leaves a graph tensor in the
attribute (and tf-keras drops the variable from the layer's weights), and the next trace,
fit's or predict's, reads that tensor from a finished graph.

Observed on TF 2.21 (tf-keras 2.21): after construction the attribute is a SymbolicTensor and
the layer has 0 trainable weights; fit and predict both raise TypeError "<tf.Tensor ...> is
out of scope and cannot be used here". (Keras 3 refuses the assignment: `embeddings` is a
read-only property there.)

    .venv/bin/python bench/precision/checks/layer_weight_rebound_to_tensor_in_call.py
"""

import numpy as np
import tf_keras as keras

K = keras.backend


class RowMaskedEmbedding(keras.layers.Embedding):
    def call(self, inputs):
        rows = np.zeros((K.int_shape(self.embeddings)[0], 1))
        rows[1:3] = 1.0
        self.embeddings = K.stop_gradient(self.embeddings * (1 - rows)) + self.embeddings * rows
        return super().call(inputs)


inputs = keras.Input((4,))
layer = RowMaskedEmbedding(6, 3)
hidden = layer(inputs)
print("attribute after construction:", type(layer.embeddings).__name__)
print("layer trainable weights:", len(layer.trainable_weights))
model = keras.Model(inputs, keras.layers.Dense(1)(keras.layers.Flatten()(hidden)))
model.compile(optimizer="sgd", loss="mse")
x, y = np.random.randint(0, 6, (8, 4)), np.ones((8, 1))
for name, run in [
    ("fit", lambda: model.fit(x, y, verbose=0)),
    ("predict", lambda: model.predict(x, verbose=0)),
]:
    try:
        run()
        print(name, "ok")
    except TypeError as error:
        print(name, "TypeError, out of scope:", "out of scope" in str(error))
