# Real-user hazard: a training loop passes a model's bound method (trainer.update) as an argument to a tf.function on every step; each attribute access makes a new bound-method object, so the tf.function sees a new Python argument and traces its whole body again on every call.
# After: https://github.com/tensorflow/tensorflow/issues/31175 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): 12 calls of run_step with trainer.update trace it 12 times (TensorFlow warns '5 out of the last 5 calls to <function run_step ...> triggered tf.function retracing', then 6 of 6); passing one bound-method object kept in a name (update = trainer.update) traces once
import tensorflow as tf


class Trainer:
    def __init__(self):
        self.weight = tf.Variable(0.5)

    def update(self, batch):
        loss = tf.reduce_mean((self.weight * batch - 1.0) ** 2)
        self.weight.assign_sub(0.1 * loss)
        return loss


traces = []


@tf.function
def run_step(step_fn, batch):
    traces.append(1)
    return step_fn(batch)


trainer = Trainer()
batches = tf.random.uniform((12, 4))
for batch in batches:
    run_step(trainer.update, batch)  # expect: NEW-bound-method-argument-retrace
print("calls:", len(batches), "traces:", len(traces))
