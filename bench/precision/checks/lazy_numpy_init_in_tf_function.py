"""TFI012: a `tf.function` method whose first call builds a helper lazily from
`tf.strings.regex_replace(<asset path>, ...).numpy()` (as tensorflow-decision-forests'
`call_get_leaves` does through `_ensure_model_get_leaves_ready`). The first call traces the
method, the op is symbolic there, and `.numpy()` raises AttributeError; building it eagerly
first (as `predict_get_leaves` does) hides the problem.

    .venv/bin/python bench/precision/checks/lazy_numpy_init_in_tf_function.py
"""

import tensorflow as tf


class Leaves(tf.Module):
    def __init__(self):
        self.asset_path = tf.constant("/models/forest/done")
        self.loaded = None

    def ensure_ready(self):
        if self.loaded is None:
            path = tf.strings.regex_replace(self.asset_path, "done", "").numpy().decode("utf-8")
            self.loaded = path

    @tf.function
    def get_leaves(self, x):
        self.ensure_ready()
        return x


direct = Leaves()
try:
    direct.get_leaves(tf.ones([2]))
    print("direct first call: ok")
except AttributeError as error:
    print("direct first call: AttributeError:", error)
eager_first = Leaves()
eager_first.ensure_ready()
print("built eagerly first, then called:", eager_first.get_leaves(tf.ones([2])).numpy())
