"""TFI012 (tf-geometric==0.1.7 tf_geometric/nn/conv/gcn.py:128, gcn_norm_adj): `.numpy()` on the
result is reached only when a cache dict is given; in that case the function first returns the
cached value, or raises when `not tf.executing_eagerly()`. So inside a tf.function the
`.numpy()` line is never executed: it runs eagerly (cache building), and in graph mode the
cached NumPy arrays are used as constants.

    .venv/bin/python bench/precision/checks/eager_guarded_numpy_cache.py
"""

import tensorflow as tf


def normed(x, cache=None):
    if cache is not None:
        hit = cache.get("k")
        if hit is not None:
            return tf.convert_to_tensor(hit)
        if not tf.executing_eagerly():
            raise Exception("build the cache eagerly first")
    y = x / tf.reduce_sum(x)
    if cache is not None:
        cache["k"] = y.numpy()
    return y


CACHE = {}


@tf.function
def step_no_cache(x):
    return normed(x) * 2.0


@tf.function
def step(x):
    return normed(x, CACHE) * 2.0  # the cache dict is closed over, as a layer attribute would be


x = tf.constant([1.0, 3.0])
print("no cache, graph:", step_no_cache(x).numpy())
try:
    step(x)
except Exception as e:
    print("empty cache, graph: raises", type(e).__name__, "before reaching .numpy():", str(e).splitlines()[-1].strip())
normed(x, CACHE)  # eager: .numpy() runs here
print("cache built eagerly:", CACHE)
print("filled cache, graph:", step(x).numpy())
