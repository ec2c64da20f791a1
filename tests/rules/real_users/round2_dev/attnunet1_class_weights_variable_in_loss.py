# Real-user hazard: a weighted segmentation loss wraps its class-weight list in K.variable inside the loss function.
# After: https://github.com/dhirajmaji7/Attention-Res-UNet-with-Guided-Decoder-for-Semantic-Segmentation-of-Brain-tumors/issues/1 (pattern only; this code is ours)
# Confirmed on TF 2.21 (tf-keras): fit raises ValueError: tf.function only supports singleton tf.Variables created on the first call (from K.variable in the loss)
import os

os.environ["TF_USE_LEGACY_KERAS"] = "1"
import numpy as np
import tensorflow as tf
from tensorflow.keras import backend as K

CLASS_WEIGHTS = [0.2, 1.0, 3.0]


def weighted_log_loss(y_true, y_pred):
    weights = K.variable(CLASS_WEIGHTS)  # expect: TFI008
    y_pred = K.clip(y_pred, K.epsilon(), 1 - K.epsilon())
    return -K.sum(y_true * K.log(y_pred) * weights, axis=-1)


model = tf.keras.Sequential([
    tf.keras.Input(shape=(8, 8, 1)),
    tf.keras.layers.Conv2D(3, 3, padding="same", activation="softmax"),
])
model.compile(optimizer="adam", loss=weighted_log_loss)
masks = np.eye(3)[np.random.randint(0, 3, size=(4, 8, 8))].astype("float32")
model.fit(np.random.rand(4, 8, 8, 1), masks, epochs=1, verbose=0)
print("trained")
