# Real-user hazard: a custom train_step calls .numpy() on predictions to compute a NumPy statistic; fit runs it as a graph.
# After: https://github.com/tensorflow/tensorflow/issues/40880 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): AttributeError: 'SymbolicTensor' object has no attribute 'numpy' (raised in fit)
import numpy as np
import tensorflow as tf


class Trainer(tf.keras.Model):
    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            cutoff = np.percentile(y_pred.numpy(), 90)  # expect: TFI012
            loss = tf.reduce_mean(tf.square(y - tf.minimum(y_pred, cutoff)))
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables, strict=True))
        return {"loss": loss}


inputs = tf.keras.Input(shape=(3,))
model = Trainer(inputs, tf.keras.layers.Dense(1)(inputs))
model.compile(optimizer="adam")
model.fit(np.random.rand(16, 3), np.random.rand(16, 1), epochs=1, verbose=0)
