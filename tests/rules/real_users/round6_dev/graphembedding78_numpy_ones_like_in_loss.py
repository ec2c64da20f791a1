# Real-user hazard: a structural graph-embedding loss weights the non-zero adjacency entries by building a NumPy mask from y_true (np.ones_like, then item assignment); the loss works on eager arrays, but model.fit traces it and y_true is a symbolic tensor.
# After: https://github.com/shenweichen/GraphEmbedding/issues/78 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): the loss on eager tensors gives 3.75; model.fit raises NotImplementedError: Cannot convert a symbolic tf.Tensor (data_1:0) to a numpy array (at np.ones_like)
import keras
import numpy as np
import tensorflow as tf


def neighbour_reconstruction_loss(edge_weight):
    def loss(y_true, y_pred):
        mask = np.ones_like(y_true)  # expect: TFI012
        mask[y_true != 0] = edge_weight
        return tf.reduce_mean(tf.reduce_sum(tf.square((y_true - y_pred) * mask), axis=-1))

    return loss


reconstruction = neighbour_reconstruction_loss(5.0)
adjacency_rows = tf.constant([[0.0, 1.0], [0.0, 0.0]])
print("eager loss:", float(reconstruction(adjacency_rows, tf.constant([[0.5, 0.5], [0.0, 1.0]]))))

nodes = 12
adjacency = (np.random.rand(nodes, nodes) > 0.7).astype("float32")
autoencoder = keras.Sequential([
    keras.Input((nodes,)),
    keras.layers.Dense(4, activation="relu"),
    keras.layers.Dense(nodes),
])
autoencoder.compile(optimizer="adam", loss=neighbour_reconstruction_loss(5.0))
autoencoder.fit(adjacency, adjacency, batch_size=4, epochs=1, verbose=0)
