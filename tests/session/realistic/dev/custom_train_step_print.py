"""A subclassed classifier with its own `train_step`, trained with `fit`; the author prints the
batch loss from inside `train_step` to watch training.

Written after the keras.io guide "Customizing what happens in `fit()` with TensorFlow"
(https://keras.io/guides/custom_train_step_in_tensorflow/). Our own code and synthetic data.
The `print` runs when Keras traces the train function, not at every step: it shows a symbolic
tensor once (or once per trace), never the per-batch values the author wanted.
"""

import numpy as np
import tensorflow as tf

keras = tf.keras


class SpiralClassifier(keras.Model):
    def __init__(self, num_classes=3):
        super().__init__()
        self.hidden1 = keras.layers.Dense(64, activation="relu")
        self.hidden2 = keras.layers.Dense(64, activation="relu")
        self.dropout = keras.layers.Dropout(0.2)
        self.logits = keras.layers.Dense(num_classes)

    def call(self, inputs, training=False):
        x = self.hidden1(inputs)
        x = self.dropout(x, training=training)
        x = self.hidden2(x)
        return self.logits(x)

    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(x=x, y=y, y_pred=y_pred)
        print("train_step loss:", loss)  # <- hazard
        gradients = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply(gradients, self.trainable_variables)
        logs = {}
        for metric in self.metrics:
            if metric.name == "loss":
                metric.update_state(loss)
            else:
                metric.update_state(y, y_pred)
            logs[metric.name] = metric.result()
        return logs


def make_spirals(n_per_class, num_classes, rng):
    points, labels = [], []
    for c in range(num_classes):
        r = np.linspace(0.05, 1.0, n_per_class)
        t = np.linspace(c * 4.0, (c + 1) * 4.0, n_per_class) + rng.normal(0, 0.2, n_per_class)
        points.append(np.stack([r * np.sin(t), r * np.cos(t)], axis=1))
        labels.append(np.full(n_per_class, c))
    return np.concatenate(points).astype("float32"), np.concatenate(labels).astype("int32")


rng = np.random.default_rng(3)
x, y = make_spirals(300, 3, rng)
order = rng.permutation(len(x))
x, y = x[order], y[order]

model = SpiralClassifier(num_classes=3)
model.compile(
    optimizer=keras.optimizers.Adam(1e-2),
    loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
    metrics=[keras.metrics.SparseCategoricalAccuracy(name="acc")],
)
model.fit(x, y, batch_size=64, epochs=5, validation_split=0.2, verbose=2)
print("test accuracy:", model.evaluate(x[-100:], y[-100:], verbose=0)[1])
