# Real-user hazard: an experiment reseeds with tf.random.set_seed before each repetition so that every repetition draws the same noise; called eagerly the draws repeat, but the noise function is a tf.function that was already traced (by a warm-up call) before the seed was set, and its random op keeps the seed it got when it was traced, so reseeding changes nothing: the repetitions differ, and so do runs of the script.
# After: https://github.com/tensorflow/tensorflow/issues/33297 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): after tf.random.set_seed(7) the two eager repetitions are equal (and the same in every run of the script); the two repetitions of the tf.function traced by the warm-up call differ (in one run [-0.0163 0.0291 -0.0305 -0.0940] then [0.0924 0.0289 -0.0132 -0.0681]), and a second run of the script draws other numbers again
import numpy as np
import tensorflow as tf


def jitter(points):
    return points + tf.random.normal(tf.shape(points), stddev=0.1)


traced_jitter = tf.function(jitter)
points = tf.zeros((4,))
print("warm-up:", traced_jitter(points).numpy())

eager_runs, traced_runs = [], []
for _ in range(2):
    tf.random.set_seed(7)
    eager_runs.append(jitter(points).numpy())
for _ in range(2):
    tf.random.set_seed(7)  # expect: NEW-seed-set-after-trace
    traced_runs.append(traced_jitter(points).numpy())
print("eager repetitions equal:", np.allclose(*eager_runs), eager_runs[0])
print("tf.function repetitions equal:", np.allclose(*traced_runs), traced_runs)
