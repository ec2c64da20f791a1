# Real-user hazard: a DeepLab-style functional model reads tf.shape() of an intermediate KerasTensor to resize back.
# After: https://github.com/ayoolaolafenwa/PixelLib/issues/181 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): ValueError: A KerasTensor cannot be used as input to a TensorFlow function
import tensorflow as tf

img_input = tf.keras.Input(shape=(64, 64, 3))
x = tf.keras.layers.Conv2D(8, 3, strides=2, padding="same")(img_input)
feat_shape = tf.shape(x)  # expect: TFI015
pooled = tf.keras.layers.GlobalAveragePooling2D(keepdims=True)(x)
pooled = tf.keras.layers.Conv2D(8, 1)(pooled)
pooled = tf.image.resize(pooled, feat_shape[1:3])  # expect: TFI015
model = tf.keras.Model(img_input, tf.keras.layers.Concatenate()([pooled, x]))
