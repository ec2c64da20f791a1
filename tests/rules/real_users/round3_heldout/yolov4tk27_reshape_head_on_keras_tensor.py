# Real-user hazard: a YOLO head decodes the functional model's output with raw TensorFlow ops (tf.shape, tf.reshape) while the inference model is being built; under Keras 3 those are KerasTensors.
# After: https://github.com/taipingeric/yolo-v4-tf.keras/issues/27 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): building the inference model raises ValueError: A KerasTensor cannot be used as input to a TensorFlow function (at tf.shape in decode_boxes)
import tensorflow as tf

NUM_CLASSES = 3


def decode_boxes(raw, grid):
    return tf.reshape(raw, (tf.shape(raw)[0], grid, grid, 3, 5 + NUM_CLASSES))  # expect: TFI015


image = tf.keras.Input(shape=(64, 64, 3))
features = tf.keras.layers.Conv2D(8, 3, strides=8, padding="same")(image)
raw_output = tf.keras.layers.Conv2D(3 * (5 + NUM_CLASSES), 1)(features)
train_model = tf.keras.Model(image, raw_output)
inference_model = tf.keras.Model(image, decode_boxes(train_model.output, grid=8))
inference_model.summary()
