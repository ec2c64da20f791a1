"""TFI006 / TFI008 / TFI017 on Keras 2 layers driven the TF1 way (a graph built once, as a
`tf.estimator` model_fn does, then `session.run` for every step), the mode of TF1-era training
code (malaya-speech 1.3's `train/model` modules: tf.contrib, tf.get_variable, tf.estimator).

A layer's `call` here
- prints its input tensor: it runs once, while the graph is built, and shows the tensor's
  name, static shape and dtype (no step values; the steps print nothing);
- makes a `PReLU` layer on the spot: its `alpha` is created once, lands in the graph's
  TRAINABLE_VARIABLES collection, so a `tf.compat.v1.train` optimizer trains it (no
  singleton-variable error, nothing left untrained);
- draws a LayerDrop decision with `np.random.uniform`: drawn once while the graph is built, so
  every step takes the same branch (the sub-layer is kept, or skipped, for the whole run).

Observed on TF 2.21 + tf-keras (v1 graph mode): one line `call sees: Tensor("Placeholder:0",
shape=(None, 4), dtype=float32)` while building, none during the 20 steps; `block/p_re_lu/alpha:0`
in the trainable collection and changed by training; the skip flag the same at all 20 steps.

    TF_CPP_MIN_LOG_LEVEL=2 .venv/bin/python bench/precision/checks/tf1_graph_mode_keras_call.py
"""

import numpy as np
import tensorflow as tf
import tf_keras as keras

tf.compat.v1.disable_eager_execution()


class Block(keras.layers.Layer):
    def __init__(self):
        super().__init__()
        self.dense = keras.layers.Dense(4)

    def call(self, x):
        print("call sees:", x)
        y = keras.layers.PReLU(alpha_initializer=keras.initializers.Constant(0.25))(x - 1.0)
        skip = np.random.uniform(0, 1) < 0.5
        if not skip:
            y = y + self.dense(y)
        return y, tf.constant(skip)


graph = tf.Graph()
with graph.as_default():
    x = tf.compat.v1.placeholder(tf.float32, (None, 4))
    out, skipped = Block()(x)
    loss = tf.reduce_mean(tf.square(out - 3.0))
    train_op = tf.compat.v1.train.AdamOptimizer(0.05).minimize(loss)
    alphas = [v for v in tf.compat.v1.trainable_variables() if "alpha" in v.name]
    print("alpha in trainable collection:", [v.name for v in alphas])
    with tf.compat.v1.Session() as sess:
        sess.run(tf.compat.v1.global_variables_initializer())
        before = sess.run(alphas[0]).copy()
        flags = []
        for _ in range(20):
            batch = np.random.uniform(-1, 1, (8, 4)).astype("float32")
            _, s = sess.run([train_op, skipped], {x: batch})
            flags.append(bool(s))
        after = sess.run(alphas[0])
        print("alpha trained:", not np.allclose(before, after))
        print("skip flag over 20 steps:", sorted(set(flags)))
