# Real-user hazard: a tf.function that writes a TensorBoard summary is called once per step with the Python int loop counter as its step argument; every new int is a new trace key, so the function is traced again on every call and TensorFlow warns about excessive retracing.
# After: https://github.com/tensorflow/tensorflow/issues/34481 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): 20 calls trace record_reward 20 times (experimental_get_tracing_count() = 20), with the warnings '5 out of the last 5 calls to <function record_reward ...> triggered tf.function retracing' and '6 out of the last 6'
import tempfile

import tensorflow as tf

writer = tf.summary.create_file_writer(tempfile.mkdtemp())


@tf.function
def record_reward(reward, step):
    with writer.as_default():
        tf.summary.scalar("episode_reward", reward, step=step)


rewards = tf.random.uniform((20,))
for episode in range(20):
    record_reward(rewards[episode], episode)  # expect: TFI004
writer.flush()
print("traces:", record_reward.experimental_get_tracing_count())
