"""TFI006: a Keras Metric whose `update_state` rebinds its count attribute (created as a
tf.Variable) to `tf.tensor_scatter_nd_add(...)` of itself, and whose `reset_state` rebinds it
to `tf.zeros`. Called eagerly, batch by batch (update_state / result / reset_state by hand),
the counts accumulate and the result is right; called inside a tf.function, the attribute
becomes that trace's graph tensor and every later call starts again from the stale value.

    TF_USE_LEGACY_KERAS=1 .venv/bin/python bench/precision/checks/metric_variable_replaced_by_tensor.py
    .venv/bin/python bench/precision/checks/metric_variable_replaced_by_tensor.py
"""

import os

import tensorflow as tf

keras = tf.keras
N_ITEMS = 6


class Coverage(keras.metrics.Metric):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.counts = tf.Variable(tf.zeros((N_ITEMS,), tf.int32), trainable=False)

    def update_state(self, ids):
        self.counts = tf.tensor_scatter_nd_add(
            self.counts, tf.expand_dims(ids, -1), tf.ones_like(ids)
        )

    def result(self):
        return tf.reduce_mean(tf.cast(self.counts > 0, tf.float32))

    def reset_state(self):
        self.counts = tf.zeros((N_ITEMS,), tf.int32)


batches = [tf.constant([0, 1]), tf.constant([2, 3]), tf.constant([4])]  # covers 5 of 6 items
print("tf.keras is", "tf-keras (Keras 2)" if os.environ.get("TF_USE_LEGACY_KERAS") else "Keras 3")

metric = Coverage()
for ids in batches:
    metric.update_state(ids)
print("eager: coverage", float(metric.result()), "(expected", 5 / N_ITEMS, ")")
metric.reset_state()
metric.update_state(batches[0])
print("eager after reset_state, one batch: coverage", float(metric.result()))

metric = Coverage()


@tf.function
def step(ids):
    metric.update_state(ids)
    return metric.result()


def show(label, fn, *args):
    try:
        print(label, float(fn(*args)))
    except Exception as error:  # we print what happens
        print(label, "raises", type(error).__name__, str(error).splitlines()[0][:100])


for ids in batches:  # the third batch has another shape: a second trace
    show(f"in tf.function: coverage after batch {ids.numpy().tolist()}", step, ids)
print("attribute after the traced steps is a", type(metric.counts).__name__)
show("eager result() afterwards", metric.result)
