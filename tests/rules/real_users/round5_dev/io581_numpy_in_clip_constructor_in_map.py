# Real-user hazard: a dataset map function builds an audio-clip object whose constructor reads the sample rate with .numpy(); it works on a file loaded eagerly, but dataset.map traces the function and the rate is a symbolic tensor.
# After: https://github.com/tensorflow/io/issues/581 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): the eager call returns a (2000, 1) clip; dataset.map(middle_second) raises AttributeError: 'SymbolicTensor' object has no attribute 'numpy' (in AudioClip.__init__)
import os
import tempfile

import tensorflow as tf


class AudioClip:
    def __init__(self, samples, sample_rate):
        self.samples = samples
        self.rate = int(sample_rate.numpy())  # expect: TFI012

    def window(self, start_seconds, length_seconds):
        begin = int(start_seconds * self.rate)
        return self.samples[begin:begin + int(length_seconds * self.rate)]


folder = tempfile.mkdtemp()
paths = []
for index in range(3):
    path = os.path.join(folder, f"take{index}.wav")
    tone = tf.sin(tf.linspace(0.0, 400.0, 8000))[:, None]
    tf.io.write_file(path, tf.audio.encode_wav(tone, 2000))
    paths.append(path)


def middle_second(path):
    samples, sample_rate = tf.audio.decode_wav(tf.io.read_file(path))
    return AudioClip(samples, sample_rate).window(1.0, 1.0)


print("eager clip:", middle_second(tf.constant(paths[0])).shape)
clips = tf.data.Dataset.from_tensor_slices(paths).map(middle_second)
print(next(iter(clips)).shape)
