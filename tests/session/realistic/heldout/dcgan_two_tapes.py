"""A small DCGAN on synthetic 28x28 "strokes": a generator and a discriminator trained together,
two GradientTapes in one `@tf.function` step, a checkpoint every other epoch.

Written after the TensorFlow tutorial "Deep Convolutional Generative Adversarial Network"
(https://www.tensorflow.org/tutorials/generative/dcgan). Our own code; the MNIST download is
replaced by 200 generated images. 200 images in batches of 64 leave a last batch of 8, so
`train_step` is traced once more for that shape: expected, not a problem.
"""

import os
import tempfile
import time

import numpy as np
import tensorflow as tf
from tensorflow.keras import layers

BUFFER_SIZE = 200
BATCH_SIZE = 64
EPOCHS = 3
NOISE_DIM = 32
NUM_EXAMPLES_TO_GENERATE = 8


def make_fake_digits(n, rng):
    """Bright vertical or diagonal strokes on a dark background, scaled to [-1, 1]."""
    images = np.zeros((n, 28, 28, 1), dtype="float32")
    for i in range(n):
        col = rng.integers(6, 22)
        slope = rng.choice([0.0, 0.3, -0.3])
        for row in range(4, 24):
            c = int(col + slope * (row - 14))
            images[i, row, max(c - 1, 0) : c + 2, 0] = 255.0
    images += rng.normal(0, 10, images.shape).astype("float32")
    return (np.clip(images, 0, 255) - 127.5) / 127.5


def make_generator_model():
    model = tf.keras.Sequential(
        [
            layers.Input(shape=(NOISE_DIM,)),
            layers.Dense(7 * 7 * 32, use_bias=False),
            layers.BatchNormalization(),
            layers.LeakyReLU(),
            layers.Reshape((7, 7, 32)),
            layers.Conv2DTranspose(32, 5, strides=1, padding="same", use_bias=False),
            layers.BatchNormalization(),
            layers.LeakyReLU(),
            layers.Conv2DTranspose(16, 5, strides=2, padding="same", use_bias=False),
            layers.BatchNormalization(),
            layers.LeakyReLU(),
            layers.Conv2DTranspose(1, 5, strides=2, padding="same", activation="tanh"),
        ],
        name="generator",
    )
    return model


def make_discriminator_model():
    return tf.keras.Sequential(
        [
            layers.Input(shape=(28, 28, 1)),
            layers.Conv2D(16, 5, strides=2, padding="same"),
            layers.LeakyReLU(),
            layers.Dropout(0.3),
            layers.Conv2D(32, 5, strides=2, padding="same"),
            layers.LeakyReLU(),
            layers.Dropout(0.3),
            layers.Flatten(),
            layers.Dense(1),
        ],
        name="discriminator",
    )


cross_entropy = tf.keras.losses.BinaryCrossentropy(from_logits=True)


def discriminator_loss(real_output, fake_output):
    real_loss = cross_entropy(tf.ones_like(real_output), real_output)
    fake_loss = cross_entropy(tf.zeros_like(fake_output), fake_output)
    return real_loss + fake_loss


def generator_loss(fake_output):
    return cross_entropy(tf.ones_like(fake_output), fake_output)


rng = np.random.default_rng(0)
train_images = make_fake_digits(BUFFER_SIZE, rng)
train_dataset = (
    tf.data.Dataset.from_tensor_slices(train_images).shuffle(BUFFER_SIZE).batch(BATCH_SIZE)
)

generator = make_generator_model()
discriminator = make_discriminator_model()
generator_optimizer = tf.keras.optimizers.Adam(1e-4)
discriminator_optimizer = tf.keras.optimizers.Adam(1e-4)

checkpoint_dir = tempfile.mkdtemp(prefix="dcgan_ckpt_")
checkpoint_prefix = os.path.join(checkpoint_dir, "ckpt")
checkpoint = tf.train.Checkpoint(
    generator_optimizer=generator_optimizer,
    discriminator_optimizer=discriminator_optimizer,
    generator=generator,
    discriminator=discriminator,
)

# The same noise every epoch, to watch the generator's progress.
seed = tf.random.normal([NUM_EXAMPLES_TO_GENERATE, NOISE_DIM])


@tf.function
def train_step(images):
    noise = tf.random.normal([tf.shape(images)[0], NOISE_DIM])

    with tf.GradientTape() as gen_tape, tf.GradientTape() as disc_tape:
        generated_images = generator(noise, training=True)

        real_output = discriminator(images, training=True)
        fake_output = discriminator(generated_images, training=True)

        gen_loss = generator_loss(fake_output)
        disc_loss = discriminator_loss(real_output, fake_output)

    gradients_of_generator = gen_tape.gradient(gen_loss, generator.trainable_variables)
    gradients_of_discriminator = disc_tape.gradient(disc_loss, discriminator.trainable_variables)

    generator_optimizer.apply_gradients(zip(gradients_of_generator, generator.trainable_variables))
    discriminator_optimizer.apply_gradients(
        zip(gradients_of_discriminator, discriminator.trainable_variables)
    )
    return gen_loss, disc_loss


def summarize_samples(model, epoch, test_input):
    # The tutorial plots a grid with matplotlib; a summary line is enough here.
    predictions = model(test_input, training=False)
    pixels = predictions.numpy()
    print(f"epoch {epoch}: samples in [{pixels.min():.2f}, {pixels.max():.2f}], mean {pixels.mean():.3f}")


def train(dataset, epochs):
    for epoch in range(epochs):
        start = time.time()
        for image_batch in dataset:
            gen_loss, disc_loss = train_step(image_batch)

        summarize_samples(generator, epoch + 1, seed)
        if (epoch + 1) % 2 == 0:
            checkpoint.save(file_prefix=checkpoint_prefix)
        print(
            f"Time for epoch {epoch + 1} is {time.time() - start:.2f} sec "
            f"(gen {float(gen_loss):.3f}, disc {float(disc_loss):.3f})"
        )


train(train_dataset, EPOCHS)
checkpoint.restore(tf.train.latest_checkpoint(checkpoint_dir))
summarize_samples(generator, EPOCHS, seed)
