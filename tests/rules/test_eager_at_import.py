"""A package that calls `tf.config.run_functions_eagerly(True)` as a statement of one of its
modules turns tf.function off for the whole process as soon as it is imported: its
tf.functions and Keras's train steps then run their Python eagerly, and what would fail only
in a graph does not (the case of `python-doctr==0.7.0`, 7 FALSE findings of round 2 held-out:
bench/precision/judgements.csv). In its modules, what goes wrong only in a graph is left out,
except in tf.data functions, which TF still traces, and a note says so; what goes wrong
eagerly too (a variable made at every call: imageai==2.1.6's TRUE TFI008) stays. A script's
own call, or one in a function or under an `if`, changes nothing for the other modules."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tf_insight.check.analyzer import analyze_source
from tf_insight.check.project import Project

LAYERS = textwrap.dedent("""\
    import random

    import tensorflow as tf


    @tf.function
    def step(x):
        return x * float(x.numpy().sum())


    def augment(x):
        return x * random.random()


    dataset = tf.data.Dataset.from_tensor_slices([1.0, 2.0]).map(augment)
    """)
SWITCH = "import tensorflow as tf\n\ntf.config.run_functions_eagerly(True)\n"
SCRIPT = "import tensorflow as tf\n\n\n@tf.function\ndef f(x):\n    return x.numpy()\n"


def package(root: Path, switch: str = SWITCH) -> None:
    (root / "pyproject.toml").write_text("")
    (root / "pkg" / "sub").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("from pkg.sub import layers\n")
    (root / "pkg" / "sub" / "__init__.py").write_text(switch)
    (root / "pkg" / "sub" / "layers.py").write_text(LAYERS)
    (root / "script.py").write_text(SCRIPT)


def check(root: Path, *paths: str) -> tuple[list[tuple[str, int, str]], str]:
    result = subprocess.run([sys.executable, "-m", "tf_insight.cli", "check", "--exit-zero",
                             "--no-cache", "--output-format", "json", *paths],
                            cwd=root, capture_output=True, text=True, timeout=120, check=True)
    return ([(f["path"], f["line"], f["code"]) for f in json.loads(result.stdout)],
            result.stderr)


@pytest.mark.parametrize("paths", [["."], ["pkg/sub/layers.py"]])
def test_the_packages_graph_functions_run_eagerly_but_tf_data_is_traced(
        tmp_path: Path, paths: list[str]) -> None:
    package(tmp_path)
    found, notes = check(tmp_path, *paths)
    layers = str(Path("pkg/sub/layers.py"))
    expected = [(layers, 12, "TFI017")] + ([("script.py", 6, "TFI012")] if paths == ["."] else [])
    assert found == expected
    assert (f"{layers}: 1 finding(s) that hold only in a graph left out: "
            f"`{Path('pkg/sub/__init__.py')}:3` calls `tf.config.run_functions_eagerly(True)` "
            "when `pkg` is imported") in notes


def test_the_editor_asks_the_same_scan(tmp_path: Path) -> None:
    package(tmp_path)
    project = Project(root=tmp_path)
    analysis = analyze_source(LAYERS, str(tmp_path / "pkg" / "sub" / "layers.py"), project)
    assert [(f.span.line, f.code) for f in analysis.findings] == [(12, "TFI017")]
    assert "1 finding(s) that hold only in a graph left out" in analysis.notes[0]
    script = analyze_source(SCRIPT, str(tmp_path / "script.py"), project)
    assert [f.code for f in script.findings] == ["TFI012"] and script.notes == []


@pytest.mark.parametrize("switch", [
    "import tensorflow as tf\n\nif DEBUG:\n    tf.config.run_functions_eagerly(True)\n",
    "import tensorflow as tf\n\n\ndef debug():\n    tf.config.run_functions_eagerly(True)\n",
    "import tensorflow as tf\n\ntf.config.run_functions_eagerly(False)\n",
])
def test_a_call_that_may_not_run_at_import_changes_nothing(tmp_path: Path, switch: str) -> None:
    package(tmp_path, switch)
    found, notes = check(tmp_path, ".")
    assert {code for _, _, code in found} == {"TFI012", "TFI017"} and len(found) == 3
    assert "left out" not in notes


def test_a_scripts_own_call_does_not_reach_the_package(tmp_path: Path) -> None:
    package(tmp_path, "")
    (tmp_path / "train.py").write_text(SWITCH)
    found, notes = check(tmp_path, "pkg")
    assert [code for _, _, code in found] == ["TFI012", "TFI017"]
    assert "left out" not in notes


@pytest.mark.slow
def test_tensorflow_does_as_the_premise_says(tmp_path: Path) -> None:
    """Real TF: after `import pkg`, the tf.function's `.numpy()` works (it runs eagerly) and
    the map function still gets a symbolic tensor (tf.data traces it)."""
    package(tmp_path)
    probe = textwrap.dedent("""\
        import tensorflow as tf
        import pkg
        from pkg.sub import layers

        print(float(layers.step(tf.ones(2))[0]))
        seen = []
        tf.data.Dataset.range(2).map(lambda x: seen.append(hasattr(x, "numpy")) or x)
        print(seen)
        """)
    result = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True,
                            text=True, timeout=300, check=True)
    assert result.stdout.split() == ["2.0", "[False]"]


def test_nothing_of_the_package_is_retraced(tmp_path: Path) -> None:
    """TFI021: a tf.function of the package given a slice that grows would retrace at every
    call, unless tf.function is off."""
    package(tmp_path)
    (tmp_path / "pkg" / "decode.py").write_text(textwrap.dedent("""\
        import tensorflow as tf


        @tf.function
        def decode(ys):
            return ys * 2


        def generate(ys, steps):
            for i in range(steps):
                decode(ys[:, : i + 1])
        """))
    found, notes = check(tmp_path, "pkg/decode.py")
    assert found == [] and "decode.py: 1 finding(s) that hold only in a graph" in notes
    (tmp_path / "pkg" / "sub" / "__init__.py").write_text("")
    found, _ = check(tmp_path, "pkg/decode.py")
    assert [code for _, _, code in found] == ["TFI021"]


def test_what_goes_wrong_eagerly_too_is_still_reported(tmp_path: Path) -> None:
    """TFI008: eagerly, a variable made in `call` is made anew at every call (its state never
    carries over); in a graph it raises. Either way it is wrong."""
    package(tmp_path)
    (tmp_path / "pkg" / "counter.py").write_text(textwrap.dedent("""\
        import tensorflow as tf


        class Counter(tf.keras.layers.Layer):
            def call(self, inputs):
                self.seen = tf.Variable(0.0)
                self.seen.assign_add(1.0)
                return inputs * self.seen
        """))
    found, notes = check(tmp_path, "pkg/counter.py")
    assert [code for _, _, code in found] == ["TFI008", "TFI009"] and "left out" not in notes


WRAPPER = textwrap.dedent("""\
    import numpy as np
    import tensorflow as tf


    class NumpyWrapper(tf.keras.layers.Layer):
        def __init__(self, fn):
            super().__init__()
            self.fn = fn
            tf.config.run_functions_eagerly(True)

        def call(self, inputs):
            return tf.constant(self.fn(inputs.numpy()))


    class Sorter(tf.keras.layers.Layer):
        def call(self, inputs):
            return tf.constant(np.sort(inputs.numpy()))
    """)


def test_a_class_that_turns_tf_function_off_when_made_runs_eagerly(tmp_path: Path) -> None:
    """xplique==2.0.2's TorchWrapper (5 FALSE TFI012 of round 5 held-out): its `__init__`
    turns tf.function off, so no instance exists whose `call` runs in a graph. Its methods'
    graph-only findings are left out, with a note; another class of the module keeps its own."""
    (tmp_path / "wrapper.py").write_text(WRAPPER)
    found, notes = check(tmp_path, "wrapper.py")
    assert found == [("wrapper.py", 17, "TFI012")]
    assert ("1 finding(s) that hold only in a graph left out: `NumpyWrapper.__init__` calls "
            "`tf.config.run_functions_eagerly(True)` (line 9)") in notes


@pytest.mark.slow
def test_tensorflow_runs_such_a_class_eagerly(tmp_path: Path) -> None:
    """Real TF: once an instance exists, the wrapper's `.numpy()` works when it is called, also
    from a tf.function (as xplique's explainers call the wrapped model)."""
    (tmp_path / "wrapper.py").write_text(WRAPPER)
    probe = textwrap.dedent("""\
        import numpy as np
        import tensorflow as tf
        from wrapper import NumpyWrapper

        layer = NumpyWrapper(lambda a: a * 2.0)
        predict = tf.function(lambda x: layer(x))
        print(float(layer(np.ones(3, "float32"))[0]), float(predict(tf.ones(3))[0]))
        """)
    result = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True,
                            text=True, timeout=300, check=True)
    assert result.stdout.split() == ["2.0", "2.0"]
