"""TFI006 on `layer.trainable_weights[i] = tensor` in a Keras `call`: Keras builds the
`trainable_weights` list anew at every access, so the write goes into a list nobody keeps. Prints
whether two accesses give the same list and what the layer holds after the write (its variable,
unchanged), eagerly and in a `tf.function`.

    .venv/bin/python bench/precision/checks/keras_weight_lists_are_copies.py
    TF_USE_LEGACY_KERAS=1 .venv/bin/python bench/precision/checks/keras_weight_lists_are_copies.py
"""

import tensorflow as tf

keras = tf.keras

dense = keras.layers.Dense(2)
dense.build((None, 3))
print("same list at two accesses:", dense.trainable_weights is dense.trainable_weights)


@tf.function
def halve_kernel() -> None:
    dense.trainable_weights[0] = dense.trainable_weights[0] * 0.5


dense.trainable_weights[0] = tf.zeros((3, 2))
print("after an eager write, the layer holds:", type(dense.trainable_weights[0]).__name__)
halve_kernel()
print("after a traced write, the layer holds:", type(dense.trainable_weights[0]).__name__)
