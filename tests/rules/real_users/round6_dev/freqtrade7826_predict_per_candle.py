# Real-user hazard: a trading strategy scores the newest window of candles with model.predict every time the bot loop hands it a new candle; each call builds predict's data pipeline for one row, so the loop runs far slower than calling the model (and users saw memory grow).
# After: https://github.com/freqtrade/freqtrade/issues/7826 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): 300 candles: ~137 ms per model.predict call against ~5 ms for model(x, training=False); max RSS 566 MB after 100 candles, 568 MB after 300 (no leak seen on 2.21)
import resource
import time

import keras
import numpy as np


class WindowScoringStrategy:
    def __init__(self, window):
        self.window = window
        self.model = keras.Sequential([
            keras.Input((window, 5)),
            keras.layers.Flatten(),
            keras.layers.Dense(16, activation="relu"),
            keras.layers.Dense(3, activation="softmax"),
        ])

    def on_new_candle(self, candles):
        recent = candles[-self.window:][None, :, :]
        votes = self.model.predict(recent, verbose=0)  # expect: TFI023
        return int(np.argmax(votes[0]))


strategy = WindowScoringStrategy(window=24)
history = np.random.rand(24, 5).astype("float32")
start = time.perf_counter()
for candle_index in range(1, 301):
    history = np.vstack([history[1:], np.random.rand(1, 5).astype("float32")])
    signal = strategy.on_new_candle(history)
    if candle_index % 100 == 0:
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"{candle_index} candles: max RSS {rss:.0f} MB")
per_predict = (time.perf_counter() - start) / 300 * 1000

start = time.perf_counter()
for _ in range(300):
    strategy.model(history[None, :, :], training=False)
per_call = (time.perf_counter() - start) / 300 * 1000
print(f"{per_predict:.1f} ms per predict call, {per_call:.1f} ms per model call")
