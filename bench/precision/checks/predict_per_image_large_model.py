"""TFI023: one `predict` per image through a large model (VGG16 up to block5_pool, random
weights so nothing downloads), as a feature-extraction loop over a folder does: the time per
image with `model.predict(x)` against `model(x, training=False)` on the same (1, 224, 224, 3)
input, and how much the process grew over the predict loop.

    .venv/bin/python bench/precision/checks/predict_per_image_large_model.py
"""
import resource
import time

import numpy as np
import tensorflow as tf

IMAGES = 30
base = tf.keras.applications.VGG16(weights=None, include_top=False)
model = tf.keras.Model(base.input, base.get_layer("block5_pool").output)
image = np.random.rand(1, 224, 224, 3).astype("float32")
model.predict(image, verbose=0)
model(image, training=False)


def per_image(call):
    start = time.perf_counter()
    for _ in range(IMAGES):
        call()
    return (time.perf_counter() - start) / IMAGES * 1000


grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
predict_ms = per_image(lambda: model.predict(image, verbose=0))
grown = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - grown) / 1024
call_ms = per_image(lambda: model(image, training=False))
print(f"predict {predict_ms:.1f} ms per image, model(x) {call_ms:.1f} ms per image, "
      f"process grew {grown:.0f} MB over {IMAGES} predicts")
