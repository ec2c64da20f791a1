# A loss that train code in another module passes to `compile`: graph code, learnt across
# modules.
import numpy as np
import tensorflow as tf


def spread_loss(y_true, y_pred):
    scale = float(np.std(y_pred))  # expect: TFI012
    return tf.reduce_mean(tf.square(y_true - y_pred), axis=-1) * scale
