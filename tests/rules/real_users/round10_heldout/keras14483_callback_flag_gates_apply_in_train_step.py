# Real-user hazard: to apply gradients only on every fourth batch, a callback sets a Python flag on the model before each batch and train_step tests it with a Python if; Keras traces train_step once, with the flag's first value, so the traced step never applies the gradients.
# After: https://github.com/keras-team/keras/issues/14483 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): with run_eagerly=True the kernel moves away from zero in 16 batches (gradients applied on every fourth batch; one run gave [0.569 -1.041 0.153], fit shuffles so the values vary); compiled normally it stays [0. 0. 0.]: the traced train_step kept apply_now=False, its value at the first batch
import keras
import numpy as np
import tensorflow as tf


class EveryNthStepModel(keras.Model):
    apply_now = False

    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(self(x, training=True) - y))
        grads = tape.gradient(loss, self.trainable_variables)
        if self.apply_now:  # expect: TFI003
            self.optimizer.apply_gradients(zip(grads, self.trainable_variables, strict=True))
        return {"loss": loss}


class ApplyEveryFourthBatch(keras.callbacks.Callback):
    def on_train_batch_begin(self, batch, logs=None):
        self.model.apply_now = (batch + 1) % 4 == 0


x = np.random.RandomState(0).normal(size=(64, 3)).astype("float32")
y = x @ np.array([[1.0], [-2.0], [0.5]], dtype="float32")
for run_eagerly in (True, False):
    inputs = keras.Input((3,))
    model = EveryNthStepModel(inputs, keras.layers.Dense(1, kernel_initializer="zeros")(inputs))
    model.compile(optimizer=keras.optimizers.SGD(0.1), run_eagerly=run_eagerly)
    model.fit(x, y, batch_size=8, epochs=2, callbacks=[ApplyEveryFourthBatch()], verbose=0)
    kernel = model.layers[-1].kernel.numpy().ravel()
    print(f"run_eagerly={run_eagerly}: kernel after 16 batches {np.round(kernel, 3)}")
