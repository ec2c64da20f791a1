"""Knowledge distillation: a teacher trained with `fit`, then a smaller student trained by a
custom loop on a mix of the hard-label loss and the KL divergence to the teacher's softened
outputs. The softening temperature is a module-level constant that the author anneals after
each epoch; the `@tf.function` steps read it.

Written after the keras.io example "Knowledge Distillation"
(https://keras.io/examples/vision/knowledge_distillation/). Our own code and data (10-class
Gaussian blobs in 20 dimensions). `TEMPERATURE` is a Python float read while tracing: the
traced graph keeps the value of the first trace, so the annealing never reaches the graph.
"""

import numpy as np
import tensorflow as tf
from tensorflow import keras

ALPHA = 0.3  # weight of the hard-label loss
TEMPERATURE = 8.0  # annealed below, once per epoch
EPOCHS = 4

rng = np.random.default_rng(31)
centers = rng.normal(0, 2.0, size=(10, 20))
labels = rng.integers(0, 10, size=1200)
features = (centers[labels] + rng.normal(0, 1.4, size=(1200, 20))).astype("float32")
x_train, y_train = features[:1000], labels[:1000].astype("int32")
x_val, y_val = features[1000:], labels[1000:].astype("int32")

teacher = keras.Sequential(
    [
        keras.Input(shape=(20,)),
        keras.layers.Dense(128, activation="relu"),
        keras.layers.Dense(128, activation="relu"),
        keras.layers.Dense(10),
    ],
    name="teacher",
)
student = keras.Sequential(
    [keras.Input(shape=(20,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(10)],
    name="student",
)

teacher.compile(
    optimizer=keras.optimizers.Adam(),
    loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
    metrics=[keras.metrics.SparseCategoricalAccuracy()],
)
teacher.fit(x_train, y_train, epochs=3, batch_size=64, verbose=0)
print("teacher:", teacher.evaluate(x_val, y_val, verbose=0))

student_loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
distill_loss_fn = keras.losses.KLDivergence()
optimizer = keras.optimizers.Adam(learning_rate=3e-3)
optimizer.build(student.trainable_variables)
val_accuracy = keras.metrics.SparseCategoricalAccuracy()


@tf.function
def distillation_loss(x, y):
    teacher_logits = teacher(x, training=False)
    student_logits = student(x, training=True)
    hard = student_loss_fn(y, student_logits)
    soft = distill_loss_fn(tf.nn.softmax(teacher_logits / TEMPERATURE), tf.nn.softmax(student_logits / TEMPERATURE)) * TEMPERATURE**2  # <- hazard
    return ALPHA * hard + (1 - ALPHA) * soft


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = distillation_loss(x, y)
    grads = tape.gradient(loss, student.trainable_variables)
    optimizer.apply_gradients(zip(grads, student.trainable_variables))
    return loss


@tf.function
def val_step(x, y):
    val_accuracy.update_state(y, student(x, training=False))


train_ds = tf.data.Dataset.from_tensor_slices((x_train, y_train)).shuffle(1000).batch(50)
val_ds = tf.data.Dataset.from_tensor_slices((x_val, y_val)).batch(50)

temperature_history = []
for epoch in range(EPOCHS):
    temperature_history.append(TEMPERATURE)
    losses = [float(train_step(x, y)) for x, y in train_ds]
    for x, y in val_ds:
        val_step(x, y)
    print(
        f"epoch {epoch + 1}: T={TEMPERATURE:.1f} distill loss {np.mean(losses):.4f} "
        f"student val acc {float(val_accuracy.result()):.3f}"
    )
    val_accuracy.reset_state()
    TEMPERATURE = max(1.0, TEMPERATURE / 2)  # anneal the softening for the next epoch
