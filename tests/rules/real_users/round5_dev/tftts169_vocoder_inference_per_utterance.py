# Real-user hazard: a vocoder's tf.function inference method (no input_signature) is called in a loop on mel-spectrograms of different lengths, one utterance at a time; every new length traces the function again.
# After: https://github.com/TensorSpeech/TensorFlowTTS/issues/169 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): 10 utterances of 9 distinct lengths: tracing count 10, with 'triggered tf.function retracing' warnings (5 out of the last 6 calls, then 6 out of 7)
import numpy as np
import tensorflow as tf


class TinyVocoder(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.upsample = tf.keras.layers.Conv1DTranspose(16, 8, strides=4, padding="same", activation="relu")
        self.to_wave = tf.keras.layers.Conv1D(1, 7, padding="same", activation="tanh")

    def call(self, mels):
        return self.to_wave(self.upsample(mels))

    @tf.function
    def inference(self, mels):
        return self.call(mels)


vocoder = TinyVocoder()
rng = np.random.default_rng(3)
for sentence in range(10):
    frames = int(rng.integers(120, 400))
    mels = tf.random.normal([1, frames, 80])
    audio = vocoder.inference(mels)  # expect: TFI021
    print(sentence, frames, "frames ->", audio.shape[1], "samples")
print("traces:", vocoder.inference.experimental_get_tracing_count())
