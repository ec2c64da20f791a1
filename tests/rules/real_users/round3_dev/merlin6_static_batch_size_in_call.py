# Real-user hazard: a layer splits its batch into parts using the static x.shape[0]; eagerly it is a number, in the graph that fit traces from a batched dataset it is None.
# After: https://github.com/NVIDIA-Merlin/distributed-embeddings/pull/6 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): the eager call works (2 parts of 4 rows); fit raises TypeError: unsupported operand type(s) for //: 'NoneType' and 'int'
import numpy as np
import tensorflow as tf


class PartitionedDense(tf.keras.layers.Layer):
    def __init__(self, units, num_parts=2):
        super().__init__()
        self.num_parts = num_parts
        self.dense = tf.keras.layers.Dense(units)

    def call(self, x):
        rows_per_part = x.shape[0] // self.num_parts  # expect: NEW-static-shape-none
        parts = [x[i * rows_per_part:(i + 1) * rows_per_part] for i in range(self.num_parts)]
        return tf.concat([self.dense(p) for p in parts], axis=0)


model = tf.keras.Sequential([PartitionedDense(1)])
print("eager:", model(tf.ones([8, 3])).shape)
model.compile(optimizer="sgd", loss="mse")
data = tf.data.Dataset.from_tensor_slices((np.random.rand(32, 3), np.random.rand(32, 1))).batch(8)
model.fit(data, epochs=1, verbose=0)
