"""A test module (`test_*.py`, `*_test.py`) runs each case once, on a few inputs: what matters
only over a long run is not reported there. A print of a traced tensor in a test's graph
function is its author's look at the trace (trace-time logging, TFI022, opt-in: menten-gcn==0.1's
16 shape prints in `tests/test_*.py` and tf-models-official==2.15.0's `MockModel.call` print
were all judged DEBATABLE, bench/precision/judgements.csv), and a `predict` per item costs a few
calls (TFI023), as does a retrace per call (TFI004, TFI014, TFI021: vbeam==1.0.10's jitted
`concatenate` per axis in `tests/`, judged DEBATABLE). What goes wrong on the first call is still reported there: a counter that stops
at 1, a tensor kept after the trace, `.numpy()` of a symbolic tensor."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tests.rules.checked import check_one_file

SOURCE = textwrap.dedent("""\
    import numpy as np
    import tensorflow as tf

    calls = 0


    @tf.function
    def double(x):
        global calls
        calls += 1
        print("input", x)
        if tf.reduce_sum(x) > 0:
            print("positive")
        return x * 2


    @tf.function
    def total(x):
        return float(x.numpy().sum())


    def predict_each(model, rows):
        model = tf.keras.models.load_model(model)
        return [model.predict(np.asarray([row])) for row in rows]


    @tf.function
    def scale(x, factor):
        return x * factor


    def scale_each(x):
        for step in range(100):
            scale(x, step)
            scale(x[:step], 2)
            tf.function(lambda v: v + 1)(x)
""")
# (code, line) of what only a long run shows: the two prints, the predict per row, a retrace
# per step (a new Python number, a new shape) and a tf.function made per step
AT_LENGTH = [("TFI006", 11), ("TFI006", 13), ("TFI023", 24), ("TFI004", 34), ("TFI021", 35),
             ("TFI014", 36)]
# what goes wrong at the first call: the counter, `.numpy()` of the traced `x`
AT_ONCE = [("TFI006", 10), ("TFI012", 19)]


def test_a_module_of_the_project_reports_all_of_it(tmp_path: Path) -> None:
    found, _ = check_one_file(tmp_path, "double.py", SOURCE)
    assert sorted(found) == sorted(AT_LENGTH + AT_ONCE)


@pytest.mark.parametrize("name", ["test_double.py", "double_test.py"])
def test_a_test_module_reports_only_what_goes_wrong_at_once(tmp_path: Path, name: str) -> None:
    found, _ = check_one_file(tmp_path, name, SOURCE)
    assert sorted(found) == sorted(AT_ONCE)
