"""A tf-keras (Keras 2) model and loss that call `.numpy()` in `call`, and a layer that counts its
calls, trained and applied in a plain `GradientTape` loop with no `tf.function` (eeg-to-fmri's
train loop and explainer): eagerly they work and the count goes up at every call; the same model
under `tf.function` fails."""
import numpy as np
import tensorflow as tf
import tf_keras as keras


class Model(keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = keras.layers.Dense(1)

    def call(self, x):
        return self.dense((x * 2.0).numpy())


class Loss(keras.losses.Loss):
    def call(self, y_true, y_pred):
        weight = tf.argmax(y_true, axis=1).numpy().astype(np.float32)
        return tf.reduce_mean(y_pred, axis=1) * weight


class Counting(keras.layers.Layer):
    def __init__(self):
        super().__init__()
        self.calls = 0

    def call(self, x):
        self.calls += 1
        return x


model, loss, optimizer = Model(), Loss(), keras.optimizers.Adam()
x = tf.random.normal((4, 3))
y = tf.one_hot([0, 1, 0, 1], 2)
for _ in range(2):
    with tf.GradientTape() as tape:
        value = loss(y, model(x, training=True))
    optimizer.apply_gradients(zip(tape.gradient(value, model.trainable_variables),
                                  model.trainable_variables, strict=True))
print("eager GradientTape loop ran, loss", float(value))
counting = Counting()
for _ in range(3):
    counting(x)
print("eager calls counted:", counting.calls)
try:
    tf.function(model)(x)
    print("tf.function: no error")
except Exception as error:  # what tracing `.numpy()` raises
    print("tf.function fails:", type(error).__name__)
