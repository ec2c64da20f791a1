# Real-user hazard: a custom loss weights the log-likelihood by an extra keras.Input (`delta`) that it reads from the enclosing scope.
# After: https://github.com/philipperemy/keract/issues/142 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): fit raises ValueError: A KerasTensor cannot be used as input to a TensorFlow function (from the loss line that uses delta)
import numpy as np
import tensorflow as tf

features = tf.keras.Input(shape=(6,))
delta = tf.keras.Input(shape=(1,))
probs = tf.keras.layers.Dense(3, activation="softmax")(features)
model = tf.keras.Model([features, delta], probs)


def weighted_nll(y_true, y_pred):
    clipped = tf.clip_by_value(y_pred, 1e-8, 1 - 1e-8)
    log_lik = y_true * tf.math.log(clipped)
    return tf.reduce_sum(-log_lik * delta)  # expect: TFI015


model.compile(optimizer="adam", loss=weighted_nll)
x = np.random.rand(32, 6).astype("float32")
d = np.random.randint(0, 2, size=(32, 1)).astype("float32")
y = np.eye(3)[np.random.randint(0, 3, 32)].astype("float32")
model.fit([x, d], y, epochs=1, verbose=0)
