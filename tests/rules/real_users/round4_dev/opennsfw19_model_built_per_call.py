# Real-user hazard: a helper builds (and loads) a new Keras model every time it is called to classify a batch of images; called in a loop, every model traces its own predict function and memory grows.
# After: https://github.com/bhky/opennsfw2/issues/19 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): from the 5th call on: 'WARNING: 5 out of the last 5 calls to ...make_predict_function...one_step_on_data_distributed... triggered tf.function retracing' (then 6 out of 6); max RSS 578 MB after 10 calls, 586 MB after 40
import resource

import numpy as np
import tensorflow as tf


def make_classifier():
    return tf.keras.Sequential([
        tf.keras.Input((32, 32, 3)),
        tf.keras.layers.Conv2D(8, 3, activation="relu"),
        tf.keras.layers.GlobalAveragePooling2D(),
        tf.keras.layers.Dense(2, activation="softmax"),
    ])


def predict_images(images):
    model = make_classifier()  # expect: NEW-model-rebuilt-in-loop
    return model.predict(images, verbose=0)[:, 1]


for step in range(40):
    scores = predict_images(np.random.rand(4, 32, 32, 3).astype("float32"))
    if step % 10 == 9:
        print(step + 1, "calls, max RSS MB:", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)
