"""Errors only old TensorFlow releases raise: `python old_tensorflow.py CASE` with that release.

Not run by the test suite (it needs the old TF's interpreter); `tests/explain/pastes/make.py`
runs it in its `terminal-tf2.4` environment and keeps the output in the paste corpus.
"""

import sys

import tensorflow as tf


def lstm_with_new_numpy():
    # TF <= 2.4 with NumPy >= 1.20: building the LSTM converts a symbolic shape with NumPy.
    tf.keras.layers.LSTM(4)(tf.keras.Input((5, 3)))  # @raise: lstm_numpy


CASES = {
    "lstm_numpy": lstm_with_new_numpy,
}

if __name__ == "__main__":
    CASES[sys.argv[1]]()
