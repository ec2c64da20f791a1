# Real-user hazard: a fluid simulator is trained one scene at a time with a tf.function step, and every scene has its own number of particles.
# After: https://github.com/isl-org/DeepLagrangianFluids/issues/28 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): 25 scenes (25 particle counts) trace train 26 times, with 'triggered tf.function retracing' warnings
import numpy as np
import tensorflow as tf


def main():
    rng = np.random.default_rng(0)
    scenes = [rng.random((int(n), 3), dtype=np.float32) for n in rng.integers(500, 2000, size=25)]
    net = tf.keras.Sequential([tf.keras.Input(shape=(3,)), tf.keras.layers.Dense(32, activation="relu"), tf.keras.layers.Dense(3)])
    optimizer = tf.keras.optimizers.Adam(1e-3)

    @tf.function
    def train(positions):
        with tf.GradientTape() as tape:
            predicted = positions + net(positions)
            loss = tf.reduce_mean(tf.square(predicted - positions))
        grads = tape.gradient(loss, net.trainable_variables)
        optimizer.apply_gradients(zip(grads, net.trainable_variables, strict=True))
        return loss

    for positions in scenes:
        train(positions)  # expect: TFI021
    print("scenes:", len(scenes), "traces:", train.experimental_get_tracing_count())


main()
