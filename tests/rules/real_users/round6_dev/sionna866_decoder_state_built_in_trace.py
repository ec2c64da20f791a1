# Real-user hazard: a channel decoder builds its parity-check matrix lazily on its first call and keeps the tensor on itself; the first call happens inside the user's tf.function, so the kept tensor belongs to that trace's graph, and the next trace (a batch of another size) cannot use it.
# After: https://github.com/NVlabs/sionna/issues/866 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): the first batch (8 words) decodes; the second batch (5 words) retraces decode_batch and raises TypeError: <tf.Tensor 'Cast:0' shape=(3, 6) dtype=float32> is out of scope and cannot be used here
import numpy as np
import tensorflow as tf


class ParityDecoder:
    def __init__(self, checks):
        self.checks_list = checks
        self.parity = None

    def __call__(self, llr):
        if self.parity is None:
            self.parity = tf.cast(tf.constant(self.checks_list), tf.float32)  # expect: TFI006
        hard = tf.cast(llr < 0, tf.float32)
        syndrome = tf.math.floormod(tf.matmul(hard, self.parity, transpose_b=True), 2.0)
        return hard, tf.reduce_all(tf.equal(syndrome, 0.0), axis=-1)


@tf.function
def decode_batch(decoder, llr):
    return decoder(llr)


decoder = ParityDecoder([[1, 1, 0, 1, 0, 0], [0, 1, 1, 0, 1, 0], [1, 0, 1, 0, 0, 1]])
bits, valid = decode_batch(decoder, tf.constant(np.random.randn(8, 6), tf.float32))
print("first batch decoded:", bits.shape, valid.shape)
bits, valid = decode_batch(decoder, tf.constant(np.random.randn(5, 6), tf.float32))
print("second batch decoded:", bits.shape)
