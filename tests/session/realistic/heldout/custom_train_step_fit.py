"""A regression model whose `train_step` and `test_step` are overridden, trained with plain
`fit` (callbacks, validation) and then evaluated and used for prediction.

Written after the keras.io guide "Customizing what happens in `fit()` with TensorFlow"
(https://keras.io/guides/custom_train_step_in_tensorflow/). Our own code and data: a noisy
house-price-like target from 6 synthetic features.
"""

import keras
import numpy as np
import tensorflow as tf


class PriceModel(keras.Model):
    """Tracks its own loss and mean absolute error instead of compiled metrics."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.loss_tracker = keras.metrics.Mean(name="loss")
        self.mae_metric = keras.metrics.MeanAbsoluteError(name="mae")
        self.huber = keras.losses.Huber(delta=1.0)

    @property
    def metrics(self):
        # Listed here so that Keras resets them at the start of each epoch.
        return [self.loss_tracker, self.mae_metric]

    def train_step(self, data):
        features, target = data
        with tf.GradientTape() as tape:
            predicted = self(features, training=True)
            loss = self.huber(target, predicted)
            loss += tf.add_n(self.losses) if self.losses else 0.0
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))

        self.loss_tracker.update_state(loss)
        self.mae_metric.update_state(target, predicted)
        return {"loss": self.loss_tracker.result(), "mae": self.mae_metric.result()}

    def test_step(self, data):
        features, target = data
        predicted = self(features, training=False)
        self.loss_tracker.update_state(self.huber(target, predicted))
        self.mae_metric.update_state(target, predicted)
        return {m.name: m.result() for m in self.metrics}


def make_houses(n, rng):
    features = rng.normal(size=(n, 6)).astype("float32")
    weights = np.array([3.0, -2.0, 0.5, 0.0, 1.5, -0.7], dtype="float32")
    target = features @ weights + 0.3 * features[:, 0] * features[:, 1]
    target += rng.normal(scale=0.2, size=n).astype("float32")
    return features, target[:, None]


rng = np.random.default_rng(7)
x_train, y_train = make_houses(900, rng)
x_test, y_test = make_houses(200, rng)

inputs = keras.Input(shape=(6,), name="features")
hidden = keras.layers.Dense(32, activation="relu", kernel_regularizer=keras.regularizers.L2(1e-4))(inputs)
hidden = keras.layers.Dense(32, activation="relu")(hidden)
outputs = keras.layers.Dense(1, name="price")(hidden)
model = PriceModel(inputs, outputs)

model.compile(optimizer=keras.optimizers.Adam(learning_rate=3e-3))
# EarlyStopping's patience = epochs: training is not seeded, so a smaller patience would make
# the number of epochs (and the graph-run counts in expected.toml) vary from run to run.
callbacks = [
    keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=1),
    keras.callbacks.EarlyStopping(monitor="val_loss", patience=6, restore_best_weights=True),
]
history = model.fit(
    x_train,
    y_train,
    batch_size=64,
    epochs=6,
    validation_split=0.1,
    callbacks=callbacks,
    verbose=2,
)

results = model.evaluate(x_test, y_test, batch_size=64, return_dict=True, verbose=0)
print("test:", {k: round(float(v), 4) for k, v in results.items()})
preds = model.predict(x_test[:10], verbose=0)
print("first predictions:", np.round(preds[:3, 0], 2), "targets:", np.round(y_test[:3, 0], 2))
