# Real-user hazard: an inference tf.function counts its calls in a module-level Python int through `global`.
# After: https://github.com/google-research/seed_rl/issues/52 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): after 10 calls num_inferences is 1
import tensorflow as tf

num_inferences = 0
policy = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(2)])


@tf.function
def inference(observation):
    global num_inferences
    num_inferences += 1  # expect: TFI006
    return tf.argmax(policy(observation), axis=-1)


for _ in range(10):
    inference(tf.random.uniform([1, 4]))
print("inferences counted:", num_inferences)
