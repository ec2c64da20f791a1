# Real-user hazard: speech augmentation mixes in a background noise clip picked with Python's random.choice inside a dataset.map function; the pick happens once, while tracing.
# After: https://github.com/hyperconnect/TC-ResNet/pull/1 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): 10 clips over 2 epochs all get the same noise clip (1 distinct noise id per epoch, the same in both)
import random

import tensorflow as tf

NOISE_CLIPS = [tf.fill([8], float(i)) for i in range(6)]


def mix_background(clip):
    noise = random.choice(NOISE_CLIPS)  # expect: TFI017
    return clip + noise


clips = tf.data.Dataset.from_tensor_slices(tf.zeros([10, 8])).map(mix_background)
for epoch in range(2):
    picked = {int(mixed[0]) for mixed in clips.as_numpy_iterator()}
    print("epoch", epoch, "noise ids used:", sorted(picked))
