# Real-user hazard: a landmark dataset decodes its images with tf.image.decode_image in a tf.data map function; decode_image may return a 3-D image or a 4-D animation, so the decoded tensor has no known rank, and Keras 3's fit cannot take the dataset.
# After: https://github.com/yinguobing/cnn-facial-landmark/issues/116 (pattern only; this code is ours)
# Confirmed on TF 2.21 (Keras 3): the dataset's image spec is TensorSpec(shape=<unknown>, dtype=tf.float32); fit raises ValueError: Exception encountered when calling Sequential.call(): Cannot take the length of shape with unknown rank (with decode_image(..., channels=3, expand_animations=False) the spec is (None, None, None, 3) and fit trains)
import keras
import numpy as np
import tensorflow as tf

images = np.random.randint(0, 256, (16, 32, 32, 3), dtype=np.uint8)
encoded = [tf.io.encode_png(image).numpy() for image in images]
marks = np.random.rand(16, 10).astype("float32")


def parse(png_bytes, points):
    image = tf.image.decode_image(png_bytes)  # expect: NEW-decode-image-unknown-rank
    return tf.cast(image, tf.float32) / 255.0, points


dataset = tf.data.Dataset.from_tensor_slices((encoded, marks)).map(parse).batch(4)
print("element spec:", dataset.element_spec[0])
model = keras.Sequential([
    keras.Input((32, 32, 3)),
    keras.layers.Conv2D(8, 3, activation="relu"),
    keras.layers.GlobalAveragePooling2D(),
    keras.layers.Dense(10),
])
model.compile(optimizer="adam", loss="mse")
model.fit(dataset, epochs=1, verbose=0)
print("trained")
