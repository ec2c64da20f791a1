"""Two everyday RNN set-ups trained with `fit`:

1. padded variable-length token sequences, `Embedding(mask_zero=True)` feeding an LSTM, so the
   padding is masked (classification: does the sequence hold a token below 8?);
2. a stateful LSTM with a fixed batch size reading a long sine-like signal in consecutive
   windows, its state reset by a callback at the end of each epoch.

Written after the keras.io guides "Understanding masking & padding"
(https://keras.io/guides/understanding_masking_and_padding/) and "Working with RNNs", section
"Cross-batch statefulness" (https://keras.io/guides/working_with_rnns/). Our own code and data.
"""

import numpy as np
import tensorflow as tf

keras = tf.keras
layers = tf.keras.layers

rng = np.random.default_rng(8)

# --- 1. masked LSTM on padded sequences -------------------------------------------------------

raw_inputs = [list(rng.integers(1, 50, size=rng.integers(3, 20))) for _ in range(384)]
labels = np.array([int(min(seq) < 8) for seq in raw_inputs], dtype="int32")
padded_inputs = keras.utils.pad_sequences(raw_inputs, maxlen=20, padding="post")
print("padded batch shape:", padded_inputs.shape)

masked_model = keras.Sequential(
    [
        keras.Input(shape=(20,), dtype="int32"),
        layers.Embedding(input_dim=50, output_dim=16, mask_zero=True),
        layers.LSTM(16),
        layers.Dense(1, activation="sigmoid"),
    ],
    name="masked_lstm",
)
masked_model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])
masked_model.fit(padded_inputs, labels, batch_size=32, epochs=5, validation_split=0.25, verbose=2)

# --- 2. stateful LSTM over consecutive windows of one long signal -----------------------------

BATCH = 8  # number of parallel streams
WINDOW = 10
STEPS_PER_STREAM = 12

t = np.arange(BATCH * WINDOW * STEPS_PER_STREAM + 1, dtype="float32")
signal = np.sin(0.07 * t) + 0.1 * rng.normal(size=t.shape).astype("float32")
streams = signal[:-1].reshape(BATCH, STEPS_PER_STREAM * WINDOW)
targets = signal[1:].reshape(BATCH, STEPS_PER_STREAM * WINDOW)
# Batch k holds window k of every stream, so that state carries over from batch to batch.
x_windows = streams.reshape(BATCH, STEPS_PER_STREAM, WINDOW).transpose(1, 0, 2).reshape(-1, WINDOW, 1)
y_windows = targets.reshape(BATCH, STEPS_PER_STREAM, WINDOW).transpose(1, 0, 2).reshape(-1, WINDOW, 1)

stateful_model = keras.Sequential(
    [
        keras.Input(batch_shape=(BATCH, WINDOW, 1)),
        layers.LSTM(24, stateful=True, return_sequences=True, name="stateful_lstm"),
        layers.Dense(1),
    ],
    name="stateful_forecaster",
)
stateful_model.compile(optimizer=keras.optimizers.Adam(5e-3), loss="mse")


class ResetStatesCallback(keras.callbacks.Callback):
    def on_epoch_end(self, epoch, logs=None):
        self.model.get_layer("stateful_lstm").reset_states()


stateful_model.fit(
    x_windows,
    y_windows,
    batch_size=BATCH,
    epochs=4,
    shuffle=False,
    callbacks=[ResetStatesCallback()],
    verbose=2,
)
stateful_model.get_layer("stateful_lstm").reset_states()
forecast = stateful_model.predict(x_windows[:BATCH], batch_size=BATCH, verbose=0)
print("forecast shape:", forecast.shape, "mse on first windows:", float(np.mean((forecast - y_windows[:BATCH]) ** 2)))
