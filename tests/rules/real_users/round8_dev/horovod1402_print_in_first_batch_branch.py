# Real-user hazard: a distributed training step syncs the initial weights from the chief under `if first_batch:` and prints a message there; the step is a tf.function whose first call creates the optimizer's variables, so TensorFlow traces it twice and the Python print runs twice, while the sync itself runs once (the user asked why the traced function seemed to run twice).
# After: https://github.com/horovod/horovod/issues/1402 (pattern only; this code is ours)
# Confirmed on TF 2.21 (tf-keras): 5 steps print "syncing weights from the chief" twice (both during the first call, one per trace) and never again; the sync counter ends at 1 (with Keras 3, whose optimizer makes its variables outside the trace, it prints once)
import os

os.environ["TF_USE_LEGACY_KERAS"] = "1"
import numpy as np
import tensorflow as tf

chief = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(1)])
worker = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(1)])
optimizer = tf.keras.optimizers.SGD(0.01)
syncs = tf.Variable(0)


@tf.function
def training_step(features, targets, first_batch):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((worker(features) - targets) ** 2)
    grads = tape.gradient(loss, worker.trainable_variables)
    optimizer.apply_gradients(zip(grads, worker.trainable_variables, strict=True))
    if first_batch:
        for mine, theirs in zip(worker.variables, chief.variables, strict=True):
            mine.assign(theirs)
        syncs.assign_add(1)
        print("syncing weights from the chief")  # expect: TFI022
    return loss


features = np.random.rand(16, 4).astype("float32")
targets = np.random.rand(16, 1).astype("float32")
for step in range(5):
    training_step(features, targets, step == 0)
print("weight syncs run:", int(syncs.numpy()))
