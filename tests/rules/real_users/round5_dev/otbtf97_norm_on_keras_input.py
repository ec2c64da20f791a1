# Real-user hazard: an example that builds a tiny model for serving computes a per-pixel L2 norm with tf.norm directly on the tf.keras.Input; it stopped working when TF 2.16 brought Keras 3.
# After: https://github.com/remicres/otbtf/issues/97 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): raises ValueError: A KerasTensor cannot be used as input to a TensorFlow function (at tf.norm); with tf-keras (TF_USE_LEGACY_KERAS=1) the model builds and returns a (1, 3, 3, 1) magnitude
import tensorflow as tf

bands = tf.keras.Input(shape=[None, None, 4], name="bands")
magnitude = tf.norm(bands, axis=-1, keepdims=True)  # expect: TFI015
scaled = tf.keras.layers.Rescaling(1.0 / 255.0)(magnitude)
model = tf.keras.Model(inputs={"bands": bands}, outputs={"magnitude": scaled})
print(model({"bands": tf.ones([1, 3, 3, 4])})["magnitude"].shape)
