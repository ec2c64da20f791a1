"""TFI017: `np.random.randint(...)` inside a tf.function train step (its size taken from the
static batch dimension). NumPy runs while the step is traced, so the drawn labels are a
constant of the graph: every step with the same input shape gets the same draw, while
`tf.random.uniform` draws anew at every step.

    .venv/bin/python bench/precision/checks/numpy_random_in_function.py
"""

import numpy as np
import tensorflow as tf

N_CLASSES = 10


@tf.function
def step(images):
    batch = images.shape[0]
    numpy_draw = tf.convert_to_tensor(np.random.randint(0, N_CLASSES, batch))
    tf_draw = tf.random.uniform((batch,), 0, N_CLASSES, dtype=tf.int32)
    return numpy_draw, tf_draw


images = tf.zeros((6, 4, 4, 3))
for i in range(4):
    numpy_draw, tf_draw = step(images)
    print(f"step {i}: np.random labels {numpy_draw.numpy().tolist()}  tf.random labels {tf_draw.numpy().tolist()}")
print("traces:", step.experimental_get_tracing_count())
