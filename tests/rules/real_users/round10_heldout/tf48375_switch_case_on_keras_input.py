# Real-user hazard: a functional model picks one of several branches with tf.switch_case on an index taken from a keras.Input; a KerasTensor is only a placeholder, and raw TensorFlow ops cannot take it.
# After: https://github.com/tensorflow/tensorflow/issues/48375 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): on an eager index tf.switch_case returns 20.0; applied to the keras.Input it raises TypeError: 'branch_index' must be a Tensor, got <class 'keras.src.backend.common.keras_tensor.KerasTensor'>
import keras
import tensorflow as tf

branches = {0: lambda: tf.constant(10.0), 1: lambda: tf.constant(20.0)}
print("eager:", tf.switch_case(tf.constant(1), branch_fns=branches, default=lambda: tf.constant(-1.0)).numpy())

mode = keras.Input(shape=(), dtype="int32", name="mode")
scale = tf.switch_case(mode, branch_fns=branches, default=lambda: tf.constant(-1.0))  # expect: TFI015
model = keras.Model(mode, scale)
