# Real-user hazard: a functional detector builder crops an upsampled feature map to the size of another one with tf.shape on KerasTensors.
# After: https://github.com/serengil/retinaface/issues/97 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): build_model raises ValueError: A KerasTensor cannot be used as input to a TensorFlow function (at tf.shape)
import tensorflow as tf


def build_model():
    image = tf.keras.Input(shape=(64, 64, 3))
    c2 = tf.keras.layers.Conv2D(8, 3, strides=2, padding="same")(image)
    c3 = tf.keras.layers.Conv2D(8, 3, strides=2, padding="same")(c2)
    up = tf.keras.layers.UpSampling2D(2)(c3)
    target_shape = tf.shape(c2)  # expect: TFI015
    up = up[:, : target_shape[1], : target_shape[2], :]
    merged = tf.keras.layers.Add()([up, c2])
    return tf.keras.Model(image, merged)


model = build_model()
print(model.output_shape)
