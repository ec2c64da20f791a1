# Real-user hazard: a GAN trainer decays its diversity-loss weight (a Python float on self) in its training loop, but the generator step is a tf.function method that reads self.diversity_weight; the weight is baked in at the first trace, so the decay never reaches the loss.
# After: https://github.com/clovaai/stargan-v2-tensorflow/issues/15 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): the Python weight goes 1.0, 0.75, 0.5, 0.25, while the weight the traced step applies (its diversity term over the diversity) stays 1.000 at every step
import keras
import tensorflow as tf


class TinyStyleGAN:
    def __init__(self, total_steps, start_weight=1.0):
        self.total_steps = total_steps
        self.start_weight = start_weight
        self.diversity_weight = start_weight
        self.generator = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8)])
        self.optimizer = keras.optimizers.Adam(1e-3)

    @tf.function
    def generator_step(self, noise_a, noise_b):
        with tf.GradientTape() as tape:
            fake_a = self.generator(noise_a, training=True)
            fake_b = self.generator(noise_b, training=True)
            diversity = tf.reduce_mean(tf.abs(fake_a - fake_b))
            diversity_term = -self.diversity_weight * diversity  # expect: TFI003
            loss = tf.reduce_mean(tf.square(fake_a)) + diversity_term
        grads = tape.gradient(loss, self.generator.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.generator.trainable_variables, strict=True))
        return diversity_term, diversity

    def train(self):
        for step in range(self.total_steps):
            self.diversity_weight = self.start_weight - (self.start_weight / self.total_steps) * step
            term, diversity = self.generator_step(tf.random.normal([8, 4]), tf.random.normal([8, 4]))
            applied = -float(term) / float(diversity)
            print(f"step {step}: Python weight {self.diversity_weight:.2f}, weight applied in the step {applied:.3f}")


TinyStyleGAN(total_steps=4).train()
