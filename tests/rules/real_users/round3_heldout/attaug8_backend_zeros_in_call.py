# Real-user hazard: a relative-position attention layer pads its logits with K.zeros(dynamic shape) inside call; K.zeros makes a variable, so the graph traced when building the model cannot use it.
# After: https://github.com/titu1994/keras-attention-augmented-convs/issues/8 (pattern only; this code is ours)
# Confirmed on TF 2.21 (tf-keras): the eager call works, building the functional model raises TypeError: <tf.Tensor 'relative_shift_1/stack:0' ...> is out of scope and cannot be used here
import os

os.environ["TF_USE_LEGACY_KERAS"] = "1"
import tensorflow as tf
from tensorflow.keras import backend as K


class RelativeShift(tf.keras.layers.Layer):
    def call(self, logits):
        shape = K.shape(logits)
        batch, heads, length = shape[0], shape[1], shape[2]
        col_pad = K.zeros(K.stack([batch, heads, length, 1]))  # expect: TFI008
        padded = K.concatenate([col_pad, logits], axis=3)
        return padded[:, :, :, 1:]


print("eager:", RelativeShift()(tf.ones([2, 3, 4, 4])).shape)
inputs = tf.keras.Input(shape=(3, 4, 4))
model = tf.keras.Model(inputs, RelativeShift()(inputs))
model.summary()
