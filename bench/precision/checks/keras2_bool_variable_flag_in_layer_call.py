"""TFI013 premise on a Keras 2 flow layer with a data-dependent-init flag (tfgenzoo 1.2.5 findings
on `self.initialized`). The layer keeps a bool weight made by
`add_weight(dtype=tf.bool, initializer=lambda shape, dtype: False,
synchronization=ON_READ, aggregation=ONLY_FIRST_REPLICA)`. Its `call` tests
`if inverse and not self.initialized: raise ...`, then calls a helper whose
`if self.initialized: ... else: ...` picks stored or batch statistics and sets the flag.

Under tf-keras, `call` and the helper are AutoGraph-converted. The helper's `if` on the
variable becomes a tf.cond: the forward pass works in a functional model, `fit` and `predict`.
With inverse=True, `and`/`not` are converted too, but the `raise` sits in a tensor-dependent
branch, and AutoGraph traces both branches: the raise fires while tracing, even though the flag
is True (the eager inverse call works). Under Keras 3 the layer cannot even be built: Keras 3's
`add_weight` has no `synchronization` argument (TypeError). Without that argument, Keras 3 does
not convert `call`, and the `if` on the variable raises while tracing.

Observed on TF 2.21:
  tf-keras: forward fit/predict ok, initialized=True; eager inverse ok;
            tf.function inverse -> ValueError: not initialised (raised while tracing)
  Keras 3: TypeError (add_weight got an unexpected keyword argument 'synchronization');
           without it, TypeError while building the functional model ("A Keras Variable cannot
           be used as a boolean", from the helper's `if self.initialized:`)

    TF_USE_LEGACY_KERAS=1 .venv/bin/python bench/precision/checks/keras2_bool_variable_flag_in_layer_call.py
    .venv/bin/python bench/precision/checks/keras2_bool_variable_flag_in_layer_call.py
"""

import os

import numpy as np
import tensorflow as tf

keras = tf.keras
flavor = "tf-keras" if os.environ.get("TF_USE_LEGACY_KERAS") else "Keras 3"


class InitOnce(keras.layers.Layer):
    def __init__(self, sync_kwargs=True, **kwargs):
        super().__init__(**kwargs)
        self.sync_kwargs = sync_kwargs

    def build(self, input_shape):
        extra = {}
        if self.sync_kwargs:
            extra = dict(
                synchronization=tf.VariableSynchronization.ON_READ,
                aggregation=tf.VariableAggregation.ONLY_FIRST_REPLICA,
            )
        self.shift = self.add_weight(name="shift", shape=(input_shape[-1],), initializer="zeros")
        self.initialized = self.add_weight(
            name="initialized", shape=(), dtype=tf.bool, trainable=False,
            initializer=lambda shape, dtype: False, **extra)

    def init_from_batch(self, x):
        if self.initialized:  # noqa: SIM108 (the tensor `if` is the point)
            shift = self.shift
        else:
            shift = -tf.reduce_mean(x, axis=0)
        self.shift.assign(shift)
        self.initialized.assign(True)

    def call(self, x, inverse=False):
        if inverse and not self.initialized:
            raise ValueError("not initialised")
        self.init_from_batch(x)
        return x - self.shift if inverse else x + self.shift


def first_line(error):
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    last = [line for line in lines if "Error" in line or "error" in line]
    return (last[-1] if last else lines[-1])[:140]


x = np.random.normal(3.0, 1.0, (8, 2)).astype("float32")
for sync_kwargs in (True, False):
    tag = f"{flavor} (synchronization kwarg={sync_kwargs})"
    try:
        layer = InitOnce(sync_kwargs=sync_kwargs)
        inputs = keras.Input((2,))
        model = keras.Model(inputs, layer(inputs))
        model.compile(loss="mse", optimizer="sgd")
        model.fit(x, x, epochs=1, batch_size=4, verbose=0)
        model.predict(x, verbose=0)
        print(f"{tag}: forward functional+fit+predict ok, "
              f"initialized={bool(layer.initialized.numpy())}")
    except Exception as error:  # what fails is the answer
        print(f"{tag}: forward: {type(error).__name__}: {first_line(error)}")
        continue
    layer(tf.constant(x), inverse=True)
    print(f"{tag}: eager inverse ok")
    try:
        tf.function(lambda t: layer(t, inverse=True))(tf.constant(x))  # noqa: B023
        print(f"{tag}: tf.function inverse ok")
    except Exception as error:  # what fails is the answer
        print(f"{tag}: tf.function inverse: {type(error).__name__}: {first_line(error)}")
