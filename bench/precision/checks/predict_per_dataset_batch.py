"""One model.predict per batch of a batched tf.data dataset (`for x, y in val: model.predict(x)`)
against one predict over the dataset and model(x) per batch: how much does the per-call set-up
cost next to a small CNN's work on a batch of 32 images?"""
import time

import numpy as np
import tensorflow as tf

keras = tf.keras
model = keras.Sequential([
    keras.Input((160, 160, 3)), keras.layers.Conv2D(32, 3, strides=2, activation="relu"),
    keras.layers.Conv2D(64, 3, strides=2, activation="relu"), keras.layers.GlobalAveragePooling2D(),
    keras.layers.Dense(5, activation="softmax")])
images = np.random.rand(640, 160, 160, 3).astype("float32")
labels = np.eye(5, dtype="float32")[np.random.randint(0, 5, 640)]
val = tf.data.Dataset.from_tensor_slices((images, labels)).batch(32)
model.predict(val, verbose=0)
for x, _ in val.take(1):
    model(x, training=False)


def per_batch_predict():
    return [model.predict(x, verbose=0) for x, _ in val]


def one_predict():
    return model.predict(val, verbose=0)


def per_batch_call():
    return [model(x, training=False).numpy() for x, _ in val]


for name, run in (("predict per batch", per_batch_predict), ("one predict", one_predict),
                  ("model(x) per batch", per_batch_call)):
    run()
    start = time.perf_counter()
    for _ in range(3):
        run()
    print(f"{name:20s} {(time.perf_counter() - start) / 3 * 1000:7.0f} ms for 20 batches")
