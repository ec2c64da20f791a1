# Real-user hazard: a custom training objective calls scikit-learn's f1_score on the y_true / y_pred tensors.
# After: https://github.com/keras-team/keras/issues/16998 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3, scikit-learn 1.9.1): fit raises NotImplementedError: Cannot convert a symbolic tf.Tensor (data_1:0) to a numpy array (from sklearn's np.asarray)
import numpy as np
import tensorflow as tf
from sklearn.metrics import f1_score


def f1_objective(y_true, y_pred):
    return 1.0 - f1_score(y_true, tf.round(y_pred))  # expect: NEW-python-library-on-symbolic-tensor


model = tf.keras.Sequential([tf.keras.Input(shape=(5,)), tf.keras.layers.Dense(1, activation="sigmoid")])
model.compile(optimizer="adam", loss=f1_objective)
x = np.random.rand(32, 5).astype("float32")
y = np.random.randint(0, 2, size=(32, 1)).astype("float32")
model.fit(x, y, epochs=1, verbose=0)
