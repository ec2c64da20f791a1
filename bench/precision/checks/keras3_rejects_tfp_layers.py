"""TensorFlow Probability's Keras layers (`tfp.layers`) are tf-keras layers since TFP 0.24 (TF
2.16): a Keras 3 model refuses them. `params_size` is a tensor, which Keras 3's `Dense` does
not take for `units`, and a TFP layer called on a Keras 3 input fails. Code that builds
models with `tfp.layers` from `tf.keras` was written for Keras 2. Prints what each Keras does.
Needs TensorFlow Probability, which .venv does not have:

    .venv/bin/python -m pip install --target /tmp/tfp tensorflow-probability
    PYTHONPATH=/tmp/tfp .venv/bin/python bench/precision/checks/keras3_rejects_tfp_layers.py
    TF_USE_LEGACY_KERAS=1 PYTHONPATH=/tmp/tfp .venv/bin/python bench/precision/checks/keras3_rejects_tfp_layers.py
"""
import numpy as np
import tensorflow as tf
import tensorflow_probability as tfp

print("tensorflow_probability", tfp.__version__, "with", tf.keras.__name__)
try:
    model = tf.keras.Sequential([
        tf.keras.Input((4,)),
        tf.keras.layers.Dense(tfp.layers.IndependentNormal.params_size(2)),
        tfp.layers.IndependentNormal(2),
    ])
    model(np.ones((1, 4), "float32"))
    print("Sequential with a TFP layer: built and called")
except ValueError as error:
    print("Sequential with a TFP layer:", str(error).splitlines()[0][:120])
try:
    inputs = tf.keras.Input((4,))
    tfp.layers.IndependentNormal(2)(tf.keras.layers.Dense(4)(inputs))
    print("functional model with a TFP layer: built")
except ValueError as error:
    print("functional model with a TFP layer:", str(error).splitlines()[0][:120])
