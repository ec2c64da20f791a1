# Real-user hazard: a fresh model is built, fit and predicted in every loop iteration; each one traces new Keras functions.
# After: https://github.com/tensorflow/tensorflow/issues/46012 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): from the 5th iteration on: 'WARNING: 5 out of the last 5 calls to ...make_predict_function... triggered tf.function retracing'
import numpy as np
import tensorflow as tf

features = np.random.normal(size=(4, 200))
target = np.array([[0.2], [0.4], [0.6], [0.8]])

for seed in range(6):
    tf.keras.utils.set_random_seed(seed)
    model = tf.keras.Sequential([tf.keras.Input(shape=(200,)), tf.keras.layers.Dense(1, activation="sigmoid")])
    model.compile(loss="mse", optimizer="adam")
    model.fit(features, target, epochs=10, verbose=0)
    print(seed, model.predict(features, verbose=0).ravel())  # expect: NEW-model-rebuilt-in-loop
