# Real-user hazard: a learnable temperature is created as a trainable tf.Variable inside the custom loss function.
# After: https://github.com/keras-team/keras/issues/12503 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): fit raises ValueError: tf.function only supports singleton tf.Variables created on the first call
import numpy as np
import tensorflow as tf


def tempered_loss(y_true, y_pred):
    temperature = tf.Variable(1.0, trainable=True, name="temperature")  # expect: TFI008
    probs = tf.nn.softmax(y_pred / temperature)
    return tf.keras.losses.categorical_crossentropy(y_true, probs)


model = tf.keras.Sequential([tf.keras.Input(shape=(5,)), tf.keras.layers.Dense(3)])
model.compile(optimizer="adam", loss=tempered_loss)
y = np.eye(3)[np.random.randint(0, 3, 64)]
model.fit(np.random.rand(64, 5), y, epochs=2, verbose=0)
