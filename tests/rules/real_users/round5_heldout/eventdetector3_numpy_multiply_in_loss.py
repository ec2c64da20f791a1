# Real-user hazard: a weighted binary cross-entropy for gait-event detection multiplies the per-step loss by the label weights with np.multiply; under Keras the loss receives symbolic tensors.
# After: https://github.com/kidzik/event-detector/issues/3 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): the loss works on eager tensors (0.121); fit raises NotImplementedError: Cannot convert a symbolic tf.Tensor (compile_loss/weighted_event_crossentropy/Mean:0) to a numpy array
import numpy as np
import tensorflow as tf


def weighted_event_crossentropy(y_true, y_pred):
    per_step = tf.keras.losses.binary_crossentropy(y_true[..., None], y_pred[..., None])
    weighted = np.multiply(per_step, y_true + 0.01)  # expect: TFI012
    return tf.reduce_mean(weighted, axis=-1)


print("eager loss:", weighted_event_crossentropy(tf.constant([[0.0, 1.0, 0.0]]), tf.constant([[0.2, 0.7, 0.1]])).numpy())

detector = tf.keras.Sequential([
    tf.keras.Input((50, 15)),
    tf.keras.layers.LSTM(16, return_sequences=True),
    tf.keras.layers.TimeDistributed(tf.keras.layers.Dense(1, activation="sigmoid")),
    tf.keras.layers.Reshape((50,)),
])
detector.compile(optimizer="adam", loss=weighted_event_crossentropy)
kinematics = np.random.rand(16, 50, 15).astype("float32")
events = (np.random.rand(16, 50) > 0.95).astype("float32")
detector.fit(kinematics, events, epochs=1, verbose=0)
