"""Pure TensorFlow graph-mode errors, one per case: `python graph_errors.py CASE`.

Each case raises at the line marked `# @raise: CASE` (warnings: `# @warns: CASE`); the tests run this
script with the real TF, read stderr and check the explanation points back at that line.
"""

import sys
import tempfile

import numpy as np
import tensorflow as tf


@tf.function(autograph=False)
def positive_only(x):
    if x > 0:  # @raise: tensor_bool
        return x
    return -x


@tf.function(autograph=False)
def sum_items(x):
    total = tf.constant(0.0)
    for item in x:  # @raise: tensor_iter
        total += item
    return total


@tf.function
def as_numpy(x):
    return x.numpy() * 2  # @raise: numpy_attr


@tf.function
def numpy_sum(x):
    return np.sum(np.array(x))  # @raise: numpy_convert


@tf.function
def new_variable(x):
    v = tf.Variable(1.0)  # @raise: singleton_variable
    return v * x


leaked = []


@tf.function
def leaky(x):
    y = x * 2.0
    leaked.append(y)
    return x


def use_leaked():
    leaky(tf.constant(1.0))
    return leaked[0] + 1.0  # @raise: out_of_scope


@tf.function
def loop_list(n):
    items = []
    for i in tf.range(n):
        items.append(tf.cast(i, tf.float32) + 1.0)  # @raise: inaccessible
    return items[-1]


def summary_int32_step():
    writer = tf.summary.create_file_writer(tempfile.mkdtemp())  # not into the repo

    @tf.function
    def log(value, step):
        with writer.as_default():
            tf.summary.scalar("loss", value, step=step)  # @raise: summary_int32

    log(tf.constant(1.0), tf.constant(3, tf.int32))


def summary_set_step_int32():
    writer = tf.summary.create_file_writer(tempfile.mkdtemp())  # not into the repo
    tf.summary.experimental.set_step(tf.constant(5, tf.int32))

    @tf.function
    def log(value):
        with writer.as_default():
            tf.summary.scalar("loss", value)  # @raise: summary_unreachable

    log(tf.constant(1.0))


created = []


@tf.function
def lazy_variable(x):
    if x.shape[0] == 2 and not created:
        created.append(tf.Variable(1.0))
    return x * 2.0


def call_lazy_variable():
    lazy_variable(tf.ones([1]))
    lazy_variable(tf.ones([2]))  # @raise: nonfirst_variable


@tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
def scale(x):
    return x * 2.0


def call_scale_with_int():
    scale(tf.constant([1, 2, 3]))  # @raise: input_signature


@tf.function
def reshape_static(x):
    return tf.reshape(x, [-1, 3])  # @raise: shape_inference


@tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
def reshape_dynamic(x):
    return tf.reshape(x, [-1, 3])  # @raise: invalid_argument


@tf.function
def train_step(x):
    return x * 2


def retrace_every_step():
    for step in range(8):
        train_step(step)  # @warns: retracing


def run_eagerly_with_dataset():
    tf.config.run_functions_eagerly(True)
    dataset = tf.data.Dataset.range(3).map(lambda x: x * 2)  # @warns: run_eagerly_tfdata
    print(list(dataset.as_numpy_iterator()))


def two_lambdas_on_one_line():
    # AutoGraph cannot tell the two lambdas apart in the source line, so it gives up.
    numbers = tf.data.Dataset.range(3)
    dataset = numbers.map(lambda x: x * 2).map(lambda x: x + 1)  # @warns: autograph_lambda
    print(list(dataset.as_numpy_iterator()))


CASES = {
    "tensor_bool": lambda: positive_only(tf.constant(1.0)),
    "tensor_iter": lambda: sum_items(tf.constant([1.0, 2.0])),
    "numpy_attr": lambda: as_numpy(tf.constant(1.0)),
    "numpy_convert": lambda: numpy_sum(tf.constant([1.0, 2.0])),
    "singleton_variable": lambda: new_variable(tf.constant(1.0)),
    "out_of_scope": use_leaked,
    "inaccessible": lambda: loop_list(tf.constant(3)),
    "summary_int32": summary_int32_step,
    "summary_unreachable": summary_set_step_int32,
    "nonfirst_variable": call_lazy_variable,
    "input_signature": call_scale_with_int,
    "shape_inference": lambda: reshape_static(tf.ones([4])),
    "invalid_argument": lambda: reshape_dynamic(tf.ones([4])),
    "autograph_lambda": two_lambdas_on_one_line,
    "retracing": retrace_every_step,
    "run_eagerly_tfdata": run_eagerly_with_dataset,
}

if __name__ == "__main__":
    CASES[sys.argv[1]]()
