# Real-user hazard: input validation with tf.debugging.Assert written directly on a Keras Input while building a functional model.
# After: https://github.com/matterport/Mask_RCNN/issues/2404 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): ValueError: A KerasTensor cannot be used as input to a TensorFlow function
import tensorflow as tf

inputs = tf.keras.Input(shape=(4,))
check = tf.debugging.Assert(tf.reduce_all(inputs >= 0.0), [inputs])  # expect: TFI015
with tf.control_dependencies([check]):
    outputs = tf.keras.layers.Dense(2)(inputs)
model = tf.keras.Model(inputs, outputs)
