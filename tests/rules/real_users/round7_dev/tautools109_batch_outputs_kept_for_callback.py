# Real-user hazard: a custom train_step keeps the batch's targets and predictions on the model so that a callback can collect per-sample scores after each batch; fit traces train_step, so what the callback reads are the symbolic tensors of the traced step, not the batch's values (it only worked with run_eagerly=True).
# After: https://github.com/cms-tau-pog/TauMLTools/pull/109 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): fit runs the first batch, then the callback's on_train_batch_end raises TypeError: <tf.Tensor 'data_1:0' shape=(16, 2) dtype=float32> is out of scope and cannot be used here (the targets the traced train_step kept on the model)
import keras
import numpy as np
import tensorflow as tf


class TaggerModel(keras.Model):
    def train_step(self, data):
        features, targets = data
        with tf.GradientTape() as tape:
            scores = self(features, training=True)
            loss = self.compute_loss(x=features, y=targets, y_pred=scores)
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables, strict=True))
        self.last_batch = (targets, scores)  # expect: TFI006
        return {"loss": loss}


class SignalScoreCollector(keras.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.signal_scores = []

    def on_train_batch_end(self, batch, logs=None):
        targets, scores = self.model.last_batch
        picked = tf.where(targets[:, 0] == 1.0, scores[:, 0], -1.0)
        self.signal_scores.append(picked)


inputs = keras.Input((6,))
outputs = keras.layers.Dense(2, activation="softmax")(keras.layers.Dense(8, activation="relu")(inputs))
model = TaggerModel(inputs, outputs)
model.compile(optimizer="adam", loss="categorical_crossentropy")
features = np.random.rand(64, 6).astype("float32")
targets = keras.utils.to_categorical(np.random.randint(0, 2, 64), 2)
collector = SignalScoreCollector()
model.fit(features, targets, batch_size=16, epochs=1, verbose=0, callbacks=[collector])
print("collected batches:", len(collector.signal_scores))
