# Real-user hazard: a hyperparameter search rebuilds the model and the optimizer for every configuration but keeps one module-level tf.function train step that reads them as globals; a configuration with another batch size retraces the step, and the fresh optimizer creates its variables inside that later trace.
# After: https://github.com/suinleelab/attributionpriors/issues/6 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): the first configuration (batch 32) trains; the first step of the second (batch 16) raises ValueError: tf.function only supports singleton tf.Variables created on the first call (the same loop without @tf.function trains both)
import keras
import numpy as np
import tensorflow as tf

features = np.random.rand(128, 8).astype("float32")
labels = (features.sum(axis=1) > 4).astype("float32")[:, None]
loss_fn = keras.losses.BinaryCrossentropy()


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = loss_fn(y, model(x, training=True))
    gradients = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(gradients, model.trainable_variables, strict=True))  # expect: NEW-variables-created-on-retrace, TFI003
    return loss


for learning_rate, batch_size in [(1e-2, 32), (1e-3, 16)]:
    model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(1, activation="sigmoid")])
    optimizer = keras.optimizers.Adam(learning_rate)
    batches = tf.data.Dataset.from_tensor_slices((features, labels)).batch(batch_size)
    for x, y in batches:
        loss = train_step(x, y)
    print(f"lr={learning_rate} batch={batch_size}: last loss {float(loss):.3f}")
