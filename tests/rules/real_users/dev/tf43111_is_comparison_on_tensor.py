# Real-user hazard: a backtest in a tf.function tests a loop-carried flag with `is False`; once the flag is a tensor the identity test is always False.
# After: https://github.com/tensorflow/tensorflow/issues/43111 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): eager gain 1.333, tf.function gain 6.0 (with 'not in_position' both give 1.333)
import tensorflow as tf


def backtest(signals, quotes):
    buy_price = 0.0
    in_position = False
    gain = 0.0
    t = 0
    while t < len(quotes):
        if signals[t] > 0.5:
            if in_position is False:  # expect: NEW-identity-comparison-on-tensor
                in_position = True
                buy_price = quotes[t]
            else:
                in_position = False
                gain += quotes[t] / buy_price - 1.0
        t += 1
    return gain


signals = tf.constant([0.9, 0.1, 0.9, 0.9, 0.1, 0.9])
quotes = tf.constant([1.0, 1.5, 2.0, 3.0, 2.0, 4.0])
print("eager gain:", float(backtest(signals, quotes)))
print("tf.function gain:", float(tf.function(backtest)(signals, quotes)))
