"""On TF 2.21 with Keras 3 (standalone `keras` and `tf.keras` alike), these Keras 2 APIs are
gone, so code calling them was written for Keras 2: a layer's `get_output_at` /
`get_input_at` / `get_output_shape_at` / `get_input_shape_at`, `backend.set_learning_phase`,
`utils.multi_gpu_model` (gone since TF 2.4), `Sequential.predict_classes` (gone since TF 2.6)
and the `CuDNNLSTM` / `CuDNNGRU` layers. Prints what each Keras has of them: tf-keras (Keras
2) has all but the last three, which TF 2.x's Keras 2 had dropped too (its code is older)."""
import keras
import tensorflow as tf
import tf_keras

for keras_module in (keras, tf.keras, tf_keras):
    dense = keras_module.layers.Dense(1)
    print(keras_module.__name__, {
        "Layer.get_output_at": hasattr(dense, "get_output_at"),
        "Layer.get_input_at": hasattr(dense, "get_input_at"),
        "Layer.get_output_shape_at": hasattr(dense, "get_output_shape_at"),
        "Layer.get_input_shape_at": hasattr(dense, "get_input_shape_at"),
        "backend.set_learning_phase": hasattr(keras_module.backend, "set_learning_phase"),
        "utils.multi_gpu_model": hasattr(keras_module.utils, "multi_gpu_model"),
        "Sequential.predict_classes": hasattr(keras_module.Sequential, "predict_classes"),
        "layers.CuDNNLSTM": hasattr(keras_module.layers, "CuDNNLSTM"),
        "layers.CuDNNGRU": hasattr(keras_module.layers, "CuDNNGRU"),
    })
