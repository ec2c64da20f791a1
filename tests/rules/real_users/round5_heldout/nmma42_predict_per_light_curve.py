# Real-user hazard: light curves are generated one parameter set at a time, and each generation calls the surrogate model's predict on a single row; inside a sampler loop this dominates the run time.
# After: https://github.com/nuclear-multimessenger-astronomy/nmma/pull/42 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): 300 light curves: ~78 ms per curve with model.predict against ~1.2 ms with model(x, training=False) (~65x)
import time

import numpy as np
import tensorflow as tf

surrogate = tf.keras.Sequential([
    tf.keras.Input((3,)),
    tf.keras.layers.Dense(64, activation="relu"),
    tf.keras.layers.Dense(20),
])
times = np.linspace(0.5, 10.0, 20)


def light_curve(ejecta_mass, velocity, opacity):
    coefficients = surrogate.predict(np.array([[ejecta_mass, velocity, opacity]]), verbose=0)  # expect: TFI023
    return times, coefficients[0] - 2.5 * np.log10(times)


rng = np.random.default_rng(7)
samples = rng.uniform([0.01, 0.05, 1.0], [0.1, 0.3, 10.0], size=(300, 3))
start = time.time()
curves = [light_curve(*row) for row in samples]
per_curve = (time.time() - start) / len(samples)
start = time.time()
direct = [surrogate(row[None, :].astype("float32"), training=False) for row in samples]
print(f"predict {per_curve * 1000:.1f} ms per curve, model(x) {(time.time() - start) / len(samples) * 1000:.1f} ms")
