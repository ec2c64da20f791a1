# Real-user hazard: a helper returns a freshly decorated @tf.function train step each time it is called, and the training loop calls the helper on every batch, so every step traces the model again (memory keeps growing; without @tf.function it does not).
# After: https://github.com/tensorflow/tensorflow/issues/50379 (comment of 2021-06-24; pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): 12 steps trace the train step 12 times (one new function object per step), with the warnings '5 out of the last 5 calls to <function make_train_step.<locals>.train_step ...> triggered tf.function retracing' and '6 out of the last 6'
import keras
import tensorflow as tf

model = keras.Sequential([keras.Input(shape=(8,)), keras.layers.Dense(4), keras.layers.Dense(1)])
optimizer = keras.optimizers.SGD(0.01)
loss_fn = keras.losses.MeanSquaredError()
made = []


def make_train_step():
    @tf.function
    def train_step(features, targets):
        with tf.GradientTape() as tape:
            loss = loss_fn(targets, model(features, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables, strict=True))
        return loss

    made.append(train_step)
    return train_step


features = tf.random.uniform([16, 8])
targets = tf.random.uniform([16, 1])
for _ in range(12):
    loss = make_train_step()(features, targets)  # expect: TFI014
traces = sum(step.experimental_get_tracing_count() for step in made)
print("12 steps traced the train step", traces, "times; last loss", round(float(loss), 4))
