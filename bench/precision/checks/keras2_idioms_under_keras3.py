"""TFI015 / TFI009 premise (Keras 3): six Keras 2 idioms, each tried under the running Keras.
(1) a functional VAE-style KL term built with tf.math ops on the encoder's KerasTensors and
attached with `model.add_loss`; (2) `Input(shape=<int>)`; (3) `reset_states()` on a metric
(custom training loops call it every epoch); (4) `save_weights` to a TF checkpoint path with
no extension; (5) `.shape.as_list()` on a functional KerasTensor; (6) a layer name with a `/`
(as in `name=f"layers/{i}"`). tf-keras accepts all six; Keras 3 rejects each, so code written
this way runs on Keras 2 only.

    TF_USE_LEGACY_KERAS=1 .venv/bin/python bench/precision/checks/keras2_idioms_under_keras3.py
    .venv/bin/python bench/precision/checks/keras2_idioms_under_keras3.py
"""

import os
import tempfile

import tensorflow as tf

keras = tf.keras


def kl_term_on_keras_tensors():
    inputs = keras.Input(shape=(8,))
    mean, log_var = keras.layers.Dense(2)(inputs), keras.layers.Dense(2)(inputs)
    model = keras.Model(inputs, keras.layers.Dense(8)(mean))
    model.add_loss(-0.5 * tf.math.reduce_mean(log_var - tf.math.square(mean) - tf.math.exp(log_var) + 1))
    return f"ok, {len(model.losses)} model loss"


def int_input_shape():
    return f"ok, shape {keras.Input(shape=784).shape}"


def metric_reset_states():
    keras.metrics.Mean().reset_states()
    return "ok"


def save_weights_checkpoint_path():
    model = keras.Sequential([keras.Input(shape=(2,)), keras.layers.Dense(1)])
    model.save_weights(os.path.join(tempfile.mkdtemp(), "generator_checkpoint"))
    return "ok"


def keras_tensor_shape_as_list():
    return f"ok, {keras.Input(shape=(4, 3)).shape.as_list()}"


def slash_in_layer_name():
    return f"ok, {keras.layers.Dense(1, name='layers/0').name}"


print("tf.keras is", "tf-keras (Keras 2)" if os.environ.get("TF_USE_LEGACY_KERAS") else "Keras 3")
for check in (
    kl_term_on_keras_tensors,
    int_input_shape,
    metric_reset_states,
    save_weights_checkpoint_path,
    keras_tensor_shape_as_list,
    slash_in_layer_name,
):
    try:
        result = check()
    except Exception as error:  # we print what happens
        result = f"raises {type(error).__name__}: {str(error).splitlines()[0][:90]}"
    print(f"{check.__name__}: {result}")
