"""Errors that are *not* graph-mode hazards, one per case: `python not_graph_errors.py CASE`.

The explanation of each must never be a confident graph-mode diagnosis: TensorFlow errors of
other kinds (memory, shapes of eager ops, labels, files, dtypes, devices) and plain Python
errors that happen to be pasted by TF users.
"""

import json
import sys

import numpy as np
import tensorflow as tf


def oom():
    tf.zeros((1 << 22, 1 << 22), tf.float32)  # 64 TiB: ResourceExhaustedError


def matmul_shapes():
    tf.matmul(tf.ones((2, 3)), tf.ones((4, 5)))


def add_shapes():
    tf.ones((2, 3)) + tf.ones((4, 5))


def label_out_of_range():
    logits = tf.zeros((2, 3))
    tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.constant([1, 7]), logits=logits)


def keras_label_out_of_range():
    model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(3)])
    model.compile(loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    model.fit(np.ones((4, 4)), np.array([0, 1, 2, 9]), verbose=0)


def keras_wrong_input_width():
    model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(3)])
    model.predict(np.ones((2, 5)), verbose=0)


def keras_unknown_loss():
    model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(3)])
    model.compile(loss="not_a_loss")


def keras_fit_without_compile():
    model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(3)])
    model.fit(np.ones((4, 4)), np.ones((4, 3)), verbose=0)


def keras_mismatched_lengths():
    model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(3)])
    model.compile(loss="mse")
    model.fit(np.ones((4, 4)), np.ones((5, 3)), verbose=0)


def keras_load_missing_file():
    tf.keras.models.load_model("no_such_model.keras")


def read_missing_file():
    tf.io.read_file("no_such_file.txt")


def dtype_mismatch():
    tf.constant(1) + tf.constant(1.5)


def bad_reshape_eager():
    tf.reshape(tf.ones([4]), [3, -1])


def gather_out_of_range():
    tf.gather(tf.ones([3]), 7)


def convert_ragged_list():
    tf.constant([[1, 2], [3]])


def bad_device():
    with tf.device("/GPU:7"):
        tf.debugging.set_log_device_placement(False)
        tf.config.experimental.set_memory_growth(tf.config.list_physical_devices("GPU")[7], True)


def cast_string():
    tf.strings.to_number("abc")


def zero_division():
    losses = [1.0, 2.0]
    print(sum(losses) / (len(losses) - 2))


def key_error():
    config = {"learning_rate": 0.1}
    print(config["batch_size"])


def pandas_key_error():
    import pandas as pd

    frame = pd.DataFrame({"x": [1, 2]})
    print(frame["label"])


def missing_module():
    import tensorflow_addons  # noqa: F401


def file_not_found():
    with open("train.csv") as handle:
        handle.read()


def attribute_none():
    model = None
    model.fit()


def index_error():
    batches = []
    print(batches[0])


def type_error_call():
    tf.keras.layers.Dense()


def json_error():
    json.loads("{not json")


def numpy_shapes():
    np.ones((2, 3)) @ np.ones((4, 5))


def recursion():
    def deep(n):
        return deep(n + 1)

    deep(0)


def value_error_unpack():
    a, b = (1, 2, 3)
    print(a, b)


def assertion():
    assert tf.reduce_sum(tf.ones(3)) == 4.0, "expected 4"


def invalid_concat():
    tf.concat([tf.ones((2, 3)), tf.ones((2, 4))], axis=0)


def unknown_optimizer():
    tf.keras.optimizers.get("not_an_optimizer")


CASES = {
    "oom": oom,
    "matmul_shapes": matmul_shapes,
    "add_shapes": add_shapes,
    "label_out_of_range": label_out_of_range,
    "keras_label_out_of_range": keras_label_out_of_range,
    "keras_wrong_input_width": keras_wrong_input_width,
    "keras_unknown_loss": keras_unknown_loss,
    "keras_fit_without_compile": keras_fit_without_compile,
    "keras_mismatched_lengths": keras_mismatched_lengths,
    "keras_load_missing_file": keras_load_missing_file,
    "read_missing_file": read_missing_file,
    "dtype_mismatch": dtype_mismatch,
    "bad_reshape_eager": bad_reshape_eager,
    "gather_out_of_range": gather_out_of_range,
    "convert_ragged_list": convert_ragged_list,
    "bad_device": bad_device,
    "cast_string": cast_string,
    "zero_division": zero_division,
    "key_error": key_error,
    "pandas_key_error": pandas_key_error,
    "missing_module": missing_module,
    "file_not_found": file_not_found,
    "attribute_none": attribute_none,
    "index_error": index_error,
    "type_error_call": type_error_call,
    "json_error": json_error,
    "numpy_shapes": numpy_shapes,
    "recursion": recursion,
    "value_error_unpack": value_error_unpack,
    "assertion": assertion,
    "invalid_concat": invalid_concat,
    "unknown_optimizer": unknown_optimizer,
}

if __name__ == "__main__":
    CASES[sys.argv[1]]()
