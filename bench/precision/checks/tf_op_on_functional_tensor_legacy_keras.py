"""TFI015 (retina-face==0.0.19 retinaface/model/retinaface_model.py:997-1119): `tf.shape` and
`tf.slice` applied to the symbolic tensors of a functional model. The package sets
`TF_USE_LEGACY_KERAS=1` before it imports TensorFlow (retinaface/RetinaFace.py:23), so
`tensorflow.keras` is tf-keras, which wraps the TF ops as layers; Keras 3 refuses them.

    .venv/bin/python bench/precision/checks/tf_op_on_functional_tensor_legacy_keras.py
    TF_USE_LEGACY_KERAS=1 .venv/bin/python bench/precision/checks/tf_op_on_functional_tensor_legacy_keras.py
"""

import numpy as np
import tensorflow as tf
from tensorflow.keras.layers import Conv2D, Input, UpSampling2D
from tensorflow.keras.models import Model

inputs = Input(shape=(16, 16, 3))
low = Conv2D(4, 3, strides=2, padding="same")(inputs)
lateral = Conv2D(4, 3, padding="same")(inputs)
up = UpSampling2D()(low)
try:
    size = tf.shape(lateral)
    cropped = tf.slice(up, [0, 0, 0, 0], [size[0], size[1], size[2], -1])
    model = Model(inputs, cropped + lateral)
    print("built:", model(np.ones((1, 16, 16, 3), "float32")).shape)
except Exception as error:  # Keras 3
    print("refused:", type(error).__name__, str(error).splitlines()[0][:120])
