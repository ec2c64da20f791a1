"""TFI009: a raw tf.Variable kept as an attribute of a subclassed Keras Model. Prints whether
Keras lists it in `weights` / `trainable_weights`, and whether a custom training loop that
steps `model.trainable_weights` (as many packages do) moves it. Last line: Keras 3's
`save_weights` refuses the Keras 2 call `save_weights("m.hdf5", save_format="h5")`.

    .venv/bin/python bench/precision/checks/raw_tf_variable_in_keras_model.py
    TF_USE_LEGACY_KERAS=1 .venv/bin/python bench/precision/checks/raw_tf_variable_in_keras_model.py
"""

import os
import tempfile

import tensorflow as tf

keras = tf.keras


class Mix(keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = keras.layers.Dense(1)
        self.logit = tf.Variable(0.0, name="logit")  # trainable raw tf.Variable
        self.frozen = tf.Variable(1.0, trainable=False, name="frozen")  # non-trainable raw tf.Variable

    def call(self, x):
        return tf.sigmoid(self.logit) * self.dense(x) * self.frozen


print("tf.keras is", "tf-keras (Keras 2)" if os.environ.get("TF_USE_LEGACY_KERAS") else "Keras 3")
model = Mix()
x = tf.ones((4, 2))
model(x)
names = lambda vs: sorted(v.name.split("/")[-1].split(":")[0] for v in vs)  # noqa: E731
print("weights:          ", names(model.weights))
print("trainable_weights:", names(model.trainable_weights))
opt = keras.optimizers.SGD(0.5)
for _ in range(3):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x) - 5.0))
    grads = tape.gradient(loss, model.trainable_weights)
    opt.apply_gradients(zip(grads, model.trainable_weights, strict=True))
print("raw trainable tf.Variable after 3 steps over trainable_weights:", float(model.logit))
path = os.path.join(tempfile.mkdtemp(), "m.hdf5")
try:
    model.save_weights(path, save_format="h5")
    print("save_weights(..hdf5, save_format='h5'): ok")
except Exception as error:  # we print what happens
    print("save_weights(..hdf5, save_format='h5') raises", type(error).__name__, str(error)[:90])
