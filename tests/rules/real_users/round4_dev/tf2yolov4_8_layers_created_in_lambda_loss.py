# Real-user hazard: a loss computed in a Lambda layer builds Keras layers inside the wrapped function, so every trace makes new, untracked layers and variables.
# After: https://github.com/robbebluecp/tf2-yolov4/issues/8 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): the model builds (the Lambda's Dense is not among its 2 trainable weights); fit raises ValueError: tf.function only supports singleton tf.Variables created on the first call (in Lambda.call)
import numpy as np
import tensorflow as tf


def box_loss(args):
    features, boxes = args
    decoded = tf.keras.layers.Dense(4, name="decode")(features)  # expect: TFI008
    return tf.reduce_sum(tf.abs(decoded - boxes), axis=-1, keepdims=True)


image_features = tf.keras.Input((6,))
true_boxes = tf.keras.Input((4,))
hidden = tf.keras.layers.Dense(8, activation="relu")(image_features)
loss = tf.keras.layers.Lambda(box_loss, output_shape=(1,), name="box_loss")([hidden, true_boxes])
train_model = tf.keras.Model([image_features, true_boxes], loss)
print("trainable weights:", len(train_model.trainable_weights))
train_model.compile("adam", loss=lambda y_true, y_pred: y_pred)
inputs = [np.random.rand(32, 6).astype("float32"), np.random.rand(32, 4).astype("float32")]
train_model.fit(inputs, np.zeros((32, 1)), batch_size=8, epochs=1, verbose=0)
