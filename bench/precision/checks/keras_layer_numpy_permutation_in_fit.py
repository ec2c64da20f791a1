"""TFI017 (kapre==0.4.1 kapre/augmentation.py:98, ChannelSwap.call): a Keras 3 layer whose
`call(x, training)` draws `np.random.permutation(n_channels)` and gathers the channels with it.
`model.fit` traces the train step once, so NumPy draws once at trace time: every training step
swaps the channels in the same order. With `run_eagerly=True` the order changes per step.

    .venv/bin/python bench/precision/checks/keras_layer_numpy_permutation_in_fit.py
"""

import numpy as np
import tensorflow as tf

keras = tf.keras


class RandomChannelOrder(keras.layers.Layer):
    traces = 0

    def call(self, x, training=None):
        if not training:
            return x
        RandomChannelOrder.traces += 1
        perm = np.random.permutation(x.shape[-1]).tolist()
        y = tf.gather(x, indices=perm, axis=-1)
        tf.print("step channel order:", tf.cast(y[0, 0, :], tf.int32))
        return y


def run(run_eagerly):
    np.random.seed(0)
    RandomChannelOrder.traces = 0
    inp = keras.Input((1, 6))
    out = keras.layers.Dense(1)(RandomChannelOrder()(inp))
    model = keras.Model(inp, out)
    model.compile("sgd", "mse", run_eagerly=run_eagerly, jit_compile=False)
    x = np.tile(np.arange(6, dtype="float32"), (8, 1, 1))  # channel i holds value i
    print(f"--- fit, run_eagerly={run_eagerly}")
    model.fit(x, np.zeros((8, 1, 1)), batch_size=2, epochs=1, verbose=0)  # 4 steps
    print("python-level calls of call(training=True):", RandomChannelOrder.traces)


print("keras", keras.__version__, "tf", tf.__version__)
run(False)
run(True)
