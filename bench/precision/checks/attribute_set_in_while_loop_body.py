"""TFI006: a layer that records a per-iteration value on `self` inside a `tf.while_loop` body.
Eagerly the body runs per iteration and the record accumulates ([0 1 2 4]); under tf.function
the body is traced once, and the attribute is left holding a tensor of the loop body's graph
(`Tensor("tracker_1/while/TensorScatterAdd:0")`, no `.numpy()`).

    .venv/bin/python bench/precision/checks/attribute_set_in_while_loop_body.py
"""
import tensorflow as tf


class Tracker(tf.keras.layers.Layer):
    def call(self, x):
        self.trace = tf.zeros(4)

        def body(i, x):
            i += 1
            self.trace = tf.tensor_scatter_nd_add(self.trace, tf.reshape(i, (1, 1)),
                                                  tf.reshape(tf.reduce_mean(x), (1,)))
            return i, x * 2.0

        tf.while_loop(lambda i, x: i < 3, body, (tf.constant(0), x))
        return x


layer = Tracker()
layer(tf.ones(2))
print("eager:", layer.trace)
step = tf.function(lambda x: layer(x))
step(tf.ones(2))
print("tf.function:", layer.trace)
try:
    print(layer.trace.numpy())
except Exception as e:
    print("reading it:", type(e).__name__, str(e)[:120])
