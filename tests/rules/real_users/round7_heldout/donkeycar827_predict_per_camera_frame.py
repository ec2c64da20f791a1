# Real-user hazard: a self-driving car's pilot part is run by the vehicle loop once per camera frame and calls model.predict on that single frame; predict sets up its data pipeline and step for every call, so the pilot takes far longer per frame than calling the model (the car drove at a few frames per second).
# After: https://github.com/autorope/donkeycar/issues/827 (fixed in https://github.com/autorope/donkeycar/pull/861) (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): 100 frames: ~126 ms per frame with model.predict against ~6 ms per frame with model(x, training=False)
import time

import keras
import numpy as np


class LinearPilot:
    def __init__(self):
        self.model = keras.Sequential([
            keras.Input((60, 80, 3)),
            keras.layers.Conv2D(8, 5, strides=2, activation="relu"),
            keras.layers.Conv2D(16, 3, strides=2, activation="relu"),
            keras.layers.Flatten(),
            keras.layers.Dense(2),
        ])

    def run(self, frame):
        outputs = self.model.predict(frame[None], verbose=0)  # expect: TFI023
        steering, throttle = outputs[0]
        return float(steering), float(throttle)


pilot = LinearPilot()
frames = np.random.rand(100, 60, 80, 3).astype("float32")
start = time.perf_counter()
for frame in frames:
    steering, throttle = pilot.run(frame)
per_predict = (time.perf_counter() - start) / len(frames) * 1000
start = time.perf_counter()
for frame in frames:
    outputs = pilot.model(frame[None], training=False)
per_call = (time.perf_counter() - start) / len(frames) * 1000
print(f"{len(frames)} frames: {per_predict:.1f} ms per frame with predict, {per_call:.1f} ms with model(x)")
