# Real-user hazard: a functional model loops `for i in range(lengths)` over a Keras Input to slice each sample.
# After: https://github.com/keras-team/keras/issues/15566 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): TypeError: 'KerasTensor' object cannot be interpreted as an integer
import tensorflow as tf

max_len = 16
tokens = tf.keras.Input(shape=(max_len, 8), name="tokens")
lengths = tf.keras.Input(shape=(2,), dtype="int32", name="lengths")
encoded = tf.keras.layers.Dense(8)(tokens)

pieces = []
for i in range(lengths):  # expect: NEW-keras-tensor-as-python-value
    pieces.append(encoded[i, : lengths[i, 0]])
model = tf.keras.Model([tokens, lengths], pieces)
