"""TFI006: a warning in the `else` branch of `if tf.shape(x)[0] > 0:` inside a tf.function,
the `if` branch appending to a Python list. AutoGraph turns the `if` into a tf.cond and traces
both branches, so the warning is logged at the trace (once per part) although no part is
empty, and never at run time, not even for an empty batch (one trace: input_signature); the
list gets the tensor either way.

    .venv/bin/python bench/precision/checks/tensor_condition_logging.py
"""

import logging

import tensorflow as tf

logging.basicConfig(format="  logged: %(message)s")
LOG = logging.getLogger("check")


@tf.function(input_signature=[tf.TensorSpec((None, 2))])
def gather_nonempty(batch):
    kept = []
    for part in [batch, batch[:1]]:
        if tf.shape(part)[0] > 0:
            kept.append(part)
        else:
            LOG.warning("this part is empty")
    return tf.concat(kept, axis=0) if kept else tf.zeros((0, 2))


for rows in (3, 3, 4, 0):
    print(f"call with {rows} rows:")
    print("  result rows:", int(tf.shape(gather_nonempty(tf.ones((rows, 2))))[0]))
print("traces:", gather_nonempty.experimental_get_tracing_count())
