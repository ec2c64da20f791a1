"""TFI004: the Python int loop variable `epoch` passed to a tf.function training step (here as
the `step` of tf.summary, a common pattern). Every new epoch value is a new trace, so the whole
step (forward, gradient, optimizer update) is traced again at the start of every epoch.

    .venv/bin/python bench/precision/checks/python_int_epoch_argument.py
"""

import tempfile

import tensorflow as tf

weight = tf.Variable(1.0)
writer = tf.summary.create_file_writer(tempfile.mkdtemp())


@tf.function
def train_step(x, epoch):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(weight * x - 2.0))
    weight.assign_sub(0.1 * tape.gradient(loss, weight))
    with writer.as_default():
        tf.summary.scalar("loss", loss, step=epoch)


batches = [tf.ones((8,))] * 5
for epoch in range(4):
    for x in batches:
        train_step(x, epoch)
    print(f"after epoch {epoch}: traces so far {train_step.experimental_get_tracing_count()}")
for epoch in range(4, 8):
    for x in batches:
        train_step(x, tf.constant(epoch, tf.int64))
print("4 more epochs with a tensor epoch: traces", train_step.experimental_get_tracing_count())
