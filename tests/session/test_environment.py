"""Probe resolution in the user's interpreter, and the pre-import choice (no debugger)."""

from __future__ import annotations

import sys
from pathlib import Path

from tf_insight.session.preimport import TF_KERAS_ATTRIBUTE, modules_to_preimport
from tf_insight.session.probes import (
    STEP_PROBES,
    Environment,
    missing_requirements,
    resolve_environment,
)


def _line_text(path: str, line: int) -> str:
    return Path(path).read_text().splitlines()[line - 1].strip()


def test_every_probe_resolves_on_the_installed_tensorflow_and_keras() -> None:
    environment = resolve_environment(sys.executable)
    assert environment.problems == ()
    assert set(environment.versions) >= {"debugpy", "tensorflow", "keras", "tf_keras"}
    names = {point.name for point in environment.probes}
    assert names >= set(STEP_PROBES) - {"tf.function.trace"}  # a hook, as are the counters
    lines = {(p.name, Path(p.path).name): _line_text(p.path, p.line) for p in environment.probes}
    assert lines["custom_gradient._graph_mode_decorator", "custom_gradient.py"] == "if kwargs:"
    assert lines["keras.Layer.__call__", "operation.py"] == "return call_fn(*args, **kwargs)"
    assert (
        lines["keras.Layer.__call__", "base_layer.py"]
        == "outputs = call_fn(inputs, *args, **kwargs)"
    )
    assert "tensorflow" not in sys.modules  # resolution never imports TensorFlow


def test_missing_requirements_say_what_to_install() -> None:
    environment = Environment("3.11.7", "/venv/bin/python", {"debugpy": "1.8"}, (), ())
    assert missing_requirements(environment) == (
        "tensorflow not installed in /venv/bin/python (Python 3.11.7). Install with:\n"
        "  /venv/bin/python -m pip install tensorflow-cpu"
    )
    environment = Environment("3.11.7", "/p", {"debugpy": "1.8", "tensorflow": "2.21"}, (), ())
    assert missing_requirements(environment) is None


def test_preimport_follows_the_scripts_imports(tmp_path: Path) -> None:
    script = tmp_path / "train.py"
    script.write_text("import numpy as np\nimport tensorflow as tf\nkeras = tf.keras\n")
    assert modules_to_preimport(script) == ["tensorflow", TF_KERAS_ATTRIBUTE]
    script.write_text("from keras import layers\n")
    assert modules_to_preimport(script) == ["keras"]
    script.write_text("import os\nos.environ['TF_USE_LEGACY_KERAS'] = '1'\nimport tensorflow\n")
    assert modules_to_preimport(script) == []  # it configures TF before importing it
    script.write_text("import tensorflow\nimport os\nos.environ['TF_CPP_MIN_LOG_LEVEL'] = '2'\n")
    assert modules_to_preimport(script) == ["tensorflow"]  # set after the import: no effect on it
    script.write_text("def broken(:\n")
    assert modules_to_preimport(script) == []
