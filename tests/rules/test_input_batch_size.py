"""A `keras.Input` given its batch size as its second argument (`Input((8,), 4)`, in Keras 3
and tf-keras alike) makes the batch dimension known: a layer that uses `x.shape[0]` as a
number builds (TFI026 stays silent), where `Input((8,))` leaves it `None` and the same model
raises TypeError in `tf.tile` (run on TF 2.21; pypaz==0.2.5's ProtoNet gives its `Input`s the
number of classes this way, bench/precision/judgements.csv)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.rules.checked import check_one_file

SOURCE = """\
import tensorflow as tf


class Pairwise(tf.keras.layers.Layer):
    def call(self, x):
        n = x.shape[0]
        return tf.tile(tf.expand_dims(x, 1), [1, n, 1])


inputs = tf.keras.Input({arguments})
model = tf.keras.Model(inputs, Pairwise()(inputs))
"""


@pytest.mark.parametrize(("arguments", "expected"), [
    ("(8,), 4", []),
    ("(8,), batch_size=4", []),
    ("(8,)", [("TFI026", 7)]),
    ("(8,), None", [("TFI026", 7)]),
])
def test_a_batch_size_given_as_the_second_argument_is_known(
        tmp_path: Path, arguments: str, expected: list[tuple[str, int]]) -> None:
    found, _ = check_one_file(tmp_path, "pairwise.py", SOURCE.format(arguments=arguments))
    assert found == expected
