# Real-user hazard: a Monte Carlo option pricer decorated with tf.function (no input_signature) is called in a loop with strike vectors whose length changes every call; each new length traces a new graph and memory keeps growing.
# After: https://github.com/google/tf-quant-finance/issues/68 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): 200 calls trace price_calls 200 times ('triggered tf.function retracing' warnings from the 5th call); max RSS 578 MB after 50 calls, 633 MB after 200
import resource

import numpy as np
import tensorflow as tf


@tf.function
def price_calls(strikes, spot, vol):
    draws = tf.random.stateless_normal([2000, 1], seed=[1, 2], dtype=tf.float64)
    terminal = spot * tf.exp(-0.5 * vol**2 + vol * draws)
    return tf.reduce_mean(tf.nn.relu(terminal - strikes[None, :]), axis=0)


spot = tf.constant(100.0, tf.float64)
vol = tf.constant(0.2, tf.float64)
for count in range(1, 201):
    strikes = tf.constant(np.random.rand(count) * 50.0 + spot.numpy(), tf.float64)
    prices = price_calls(strikes, spot, vol)  # expect: TFI021
    if count % 50 == 0:
        print(count, "calls, traces:", price_calls.experimental_get_tracing_count(),
              "max RSS MB:", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)
