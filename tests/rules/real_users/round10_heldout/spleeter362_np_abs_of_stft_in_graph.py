# Real-user hazard: a spectrogram function takes the magnitude of tf.signal.stft with np.abs; called on an eager tensor it works, but the input pipeline (and the model function) trace it into a graph, where NumPy cannot convert the symbolic STFT.
# After: https://github.com/deezer/spleeter/pull/362 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): called on an eager tensor the function returns a (15, 129) magnitude; Dataset.map raises NotImplementedError: Cannot convert a symbolic tf.Tensor (stft/rfft:0) to a numpy array (at the np.abs line)
import numpy as np
import tensorflow as tf


def magnitude_spectrogram(waveform):
    stft = tf.signal.stft(waveform, frame_length=256, frame_step=128)
    return np.abs(stft)  # expect: TFI012


waves = np.random.RandomState(0).normal(size=(4, 2048)).astype("float32")
print("eager:", magnitude_spectrogram(tf.constant(waves[0])).shape)
dataset = tf.data.Dataset.from_tensor_slices(waves).map(magnitude_spectrogram)
for spectrogram in dataset.take(1):
    print("pipeline:", spectrogram.shape)
