"""Keras training and model-building errors: `python keras_errors.py CASE`.

Run with the default Keras 3, or with `TF_USE_LEGACY_KERAS=1` for tf-keras. The line that
raises is marked `# @raise: CASE` (warnings: `# @warns: CASE`).
"""

import sys

import numpy as np
import tensorflow as tf

keras = tf.keras

features = np.ones((8, 4), "float32")
targets = np.ones((8, 1), "float32")


def compiled_model(loss="mse", output_layers=()):
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(1), *output_layers])
    model.compile(optimizer="sgd", loss=loss)
    return model


def batched_dataset():
    return tf.data.Dataset.from_tensor_slices((features, targets)).batch(4)


def scalar_loss(y_true, y_pred):
    return tf.reduce_mean(tf.square(y_true - y_pred))


def squeeze_sample_weight():
    model = compiled_model(scalar_loss, [keras.layers.Reshape(())])
    weights = np.array([1, 0, 0, 0, 0, 0, 0, 0], "float32")
    rank1_targets = targets[:, 0]
    model.fit(features, rank1_targets, sample_weight=weights, batch_size=4)  # @raise: squeeze


def dataset_sample_weight():
    model = compiled_model()
    weights = np.ones(8)
    model.fit(batched_dataset(), sample_weight=weights)  # @raise: dataset_sample_weight


def dataset_targets():
    model = compiled_model()
    model.fit(batched_dataset(), targets, verbose=0)  # @raise: dataset_y


def dataset_validation_split():
    model = compiled_model()
    model.fit(batched_dataset(), validation_split=0.5)  # @raise: dataset_validation_split


def unbatched_dataset():
    model = compiled_model()
    dataset = tf.data.Dataset.from_tensor_slices((features, targets))
    model.fit(dataset, epochs=1, verbose=0)  # @raise: unbatched_dataset


def dataset_with_shuffle():
    model = compiled_model()
    model.fit(batched_dataset(), epochs=1, verbose=0)  # @warns: dataset_shuffle


def keras_tensor_into_tf_op():
    inputs = keras.Input((4,))
    total = tf.reduce_sum(inputs, axis=-1)  # @raise: keras_tensor
    keras.Model(inputs, total)


class RawVariables(keras.layers.Layer):
    def __init__(self):
        super().__init__()
        self.scales = [tf.Variable(1.0) for _ in range(3)]

    def call(self, inputs):
        return inputs * self.scales[0] * self.scales[1] * self.scales[2]


def untracked_variables():
    model = keras.Sequential([keras.Input((4,)), RawVariables()])
    model.compile(optimizer="sgd", loss="mse")
    model.fit(features, features, verbose=0)  # @warns: no_trainable_weights


class BatchSized(keras.layers.Layer):
    def call(self, inputs):
        batch = int(inputs.shape[0])  # @raise: output_shape
        return tf.reshape(inputs, [batch, -1])


def infer_output_shape():
    inputs = keras.Input((4,))
    keras.Model(inputs, BatchSized()(inputs))


class PositiveOnly(keras.layers.Layer):
    def call(self, inputs):
        if tf.reduce_sum(inputs) > 0:  # @raise: layer_tensor_bool
            return inputs
        return -inputs


def layer_tensor_bool():
    inputs = keras.Input((4,))
    keras.Model(inputs, PositiveOnly()(inputs))


def class_loss(y_true, y_pred):
    predicted = tf.cast(tf.argmax(y_pred, axis=-1), tf.float32)
    return tf.reduce_mean(tf.square(y_true[:, 0] - predicted))


def no_gradients():
    model = compiled_model(class_loss)
    model.fit(features, targets, verbose=0)  # @raise: no_gradients


def keras_tensor_to_numpy():
    inputs = keras.Input((4,))
    np.array(inputs)  # @raise: keras_tensor_numpy


def predict_with_new_models():
    for size in range(1, 8):
        model = compiled_model()
        model.predict(np.ones((size, 4), "float32"), verbose=0)  # @warns: predict_new_models


CASES = {
    "squeeze": squeeze_sample_weight,
    "dataset_sample_weight": dataset_sample_weight,
    "dataset_y": dataset_targets,
    "dataset_validation_split": dataset_validation_split,
    "unbatched_dataset": unbatched_dataset,
    "dataset_shuffle": dataset_with_shuffle,
    "keras_tensor": keras_tensor_into_tf_op,
    "no_trainable_weights": untracked_variables,
    "output_shape": infer_output_shape,
    "layer_tensor_bool": layer_tensor_bool,
    "no_gradients": no_gradients,
    "keras_tensor_numpy": keras_tensor_to_numpy,
    "predict_new_models": predict_with_new_models,
}

if __name__ == "__main__":
    CASES[sys.argv[1]]()
