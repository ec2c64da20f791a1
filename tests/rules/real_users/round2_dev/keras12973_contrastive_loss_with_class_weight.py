# Real-user hazard: a siamese network's contrastive loss averages over the whole batch, then fit is given class_weight.
# After: https://github.com/keras-team/keras/issues/12973 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): with class_weight {0: 0, 1: 1} the batch-averaged loss reports 0.4438 (zero-weighted negative pairs still counted); the same loss per pair reports 0.7206
import numpy as np
import tensorflow as tf

MARGIN = 1.0


def contrastive_loss(y_true, distance):
    positive = y_true * tf.square(distance)
    negative = (1.0 - y_true) * tf.square(tf.maximum(MARGIN - distance, 0.0))
    return tf.reduce_mean(positive + negative)  # expect: TFI010


def per_pair_contrastive_loss(y_true, distance):
    positive = y_true * tf.square(distance)
    negative = (1.0 - y_true) * tf.square(tf.maximum(MARGIN - distance, 0.0))
    return tf.reduce_mean(positive + negative, axis=-1)


def build(loss):
    left, right = tf.keras.Input(shape=(4,)), tf.keras.Input(shape=(4,))
    embed = tf.keras.layers.Dense(2, kernel_initializer="ones", use_bias=False)
    distance = tf.keras.layers.Lambda(
        lambda pair: tf.sqrt(tf.reduce_sum(tf.square(pair[0] - pair[1]), axis=1, keepdims=True) + 1e-9)
    )([embed(left), embed(right)])
    model = tf.keras.Model([left, right], distance)
    model.compile(optimizer=tf.keras.optimizers.SGD(0.0), loss=loss)
    return model


rng = np.random.default_rng(0)
a, b = rng.random((8, 4)).astype("float32"), rng.random((8, 4)).astype("float32")
same = np.array([1, 0, 1, 0, 1, 0, 1, 0], dtype="float32").reshape(-1, 1)
weights = {0: 0.0, 1: 1.0}
for loss in (contrastive_loss, per_pair_contrastive_loss):
    history = build(loss).fit([a, b], same, class_weight=weights, batch_size=8, epochs=1, verbose=0)
    print(loss.__name__, "loss with class_weight", weights, "->", round(history.history["loss"][0], 4))
