# Real-user hazard: a GAN's loss is a tf.function called with Python flags and an adversarial weight that is re-tuned every epoch.
# After: https://github.com/NatLabRockies/sup3r/pull/109 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): 20 traces in 20 calls (each new weight value traces both flag combinations again), with 'triggered tf.function retracing' warnings
import tensorflow as tf


class TinyGan:
    def __init__(self):
        self.generator = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(4)])
        self.discriminator = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(1)])

    @tf.function
    def calc_loss(self, low_res, high_res, weight_gen_advers, train_gen, train_disc):
        fake = self.generator(low_res)
        content = tf.reduce_mean(tf.square(fake - high_res))
        advers = tf.reduce_mean(tf.nn.softplus(-self.discriminator(fake)))
        disc = tf.reduce_mean(tf.nn.softplus(self.discriminator(fake)) + tf.nn.softplus(-self.discriminator(high_res)))
        if train_gen and not train_disc:
            return content + weight_gen_advers * advers
        return disc


gan = TinyGan()
low, high = tf.random.normal([8, 4]), tf.random.normal([8, 4])
weight = 1e-3
for _ in range(10):
    gan.calc_loss(low, high, weight, train_gen=True, train_disc=False)  # expect: TFI004
    gan.calc_loss(low, high, weight, train_gen=False, train_disc=True)  # expect: TFI004
    weight *= 1.5
print("traces of calc_loss in 20 calls:", gan.calc_loss.experimental_get_tracing_count())
