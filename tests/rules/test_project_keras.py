"""What a project's other files show of its Keras, whether checked from the command line (the
import index notes it) or one file at a time as the editor does (the project asks the same
cached scan): one that uses what Keras 3 removed (`fit_generator`, `lr=` in an optimizer, ...)
makes the project's code Keras 2 code, not "Keras 3 assumed"; a batch-reduced `Loss` class
(TFI010) matters only in a project that gives Keras sample or class weights."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from tf_insight.check.analyzer import analyze_source
from tf_insight.check.project import Project

# a raw tf.Variable on a layer: TFI009 on Keras 3 only
LAYER = textwrap.dedent("""\
    import tensorflow as tf


    class Scale(tf.keras.layers.Layer):
        def __init__(self):
            super().__init__()
            self.s = tf.Variable(1.0)

        def call(self, x):
            return x * self.s
    """)
TRAIN = textwrap.dedent("""\
    import numpy as np
    import tensorflow as tf

    from layers import Scale


    def batches():
        while True:
            yield np.ones((4, 2)), np.ones((4, 1))


    model = tf.keras.Sequential([tf.keras.layers.Dense(1), Scale()])
    model.compile(loss="mse")
    model.fit_generator(batches(), steps_per_epoch=2)
    """)


def check(root: Path, *paths: str) -> tuple[list[dict[str, object]], str]:
    result = subprocess.run([sys.executable, "-m", "tf_insight.cli", "check", "--exit-zero",
                             "--no-cache", "--output-format", "json", *paths],
                            cwd=root, capture_output=True, text=True, timeout=120, check=True)
    return json.loads(result.stdout), result.stderr


def test_a_file_without_an_idiom_runs_on_the_keras_2_of_its_project(tmp_path: Path) -> None:
    (tmp_path / "layers.py").write_text(LAYER)
    alone, notes = check(tmp_path, "layers.py")
    assert [f["code"] for f in alone] == ["TFI009"]  # nothing says which Keras: 3 assumed
    assert "(Keras 3 assumed)" in str(alone[0]["message"]) and "Keras 3 assumed" in notes

    (tmp_path / "train.py").write_text(TRAIN)
    for paths in (["layers.py"], ["."]):
        found, notes = check(tmp_path, *paths)
        assert found == [] and "assumed" not in notes, paths

    # one file at a time, without the command line's index (the editor): the same answer
    project = Project(root=tmp_path)
    analysis = analyze_source(LAYER, str(tmp_path / "layers.py"), project)
    assert [f.code for f in analysis.findings] == []
    assert project.keras.idiom == "`train.py` uses `fit_generator()`, which only Keras 2 accepts"


def test_declared_requirements_win_over_another_files_idiom(tmp_path: Path) -> None:
    (tmp_path / "layers.py").write_text(LAYER)
    (tmp_path / "train.py").write_text(TRAIN)
    (tmp_path / "requirements.txt").write_text("tensorflow>=2.16\n")
    found, notes = check(tmp_path, "layers.py")
    assert [f["code"] for f in found] == ["TFI009"] and "assumed" not in notes


BATCH_MEAN_LOSS = textwrap.dedent("""\
    import tensorflow as tf


    class BatchMeanLoss(tf.keras.losses.Loss):
        def call(self, y_true, y_pred):
            return tf.reduce_mean(tf.square(y_true - y_pred))
    """)
FIT = textwrap.dedent("""\
    import numpy as np
    import tensorflow as tf

    from losses import BatchMeanLoss

    model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss=BatchMeanLoss())
    model.fit(np.ones((8, 4)), np.ones((8, 1)){})
    """)


def test_a_batch_reduced_loss_class_only_where_the_project_weights_samples(
        tmp_path: Path) -> None:
    (tmp_path / "losses.py").write_text(BATCH_MEAN_LOSS)
    (tmp_path / "train.py").write_text(FIT.format(""))
    assert check(tmp_path, ".")[0] == []  # no weights anywhere: Keras's mean is the same
    (tmp_path / "train.py").write_text(FIT.format(", sample_weight=np.arange(8.0)"))
    found = check(tmp_path, "losses.py")[0]
    assert [(f["code"], f["line"]) for f in found] == [("TFI010", 6)]


def test_what_is_no_evidence_of_keras_2_for_the_other_files(tmp_path: Path) -> None:
    (tmp_path / "layers.py").write_text(LAYER)
    # a docstring's example, a format Keras 3 accepts, and a file that imports tf-keras (its
    # idioms are explained by its import)
    (tmp_path / "docs.py").write_text('"""Example:\n\n    model.fit_generator(batches)\n"""\n'
                                      'def save(model, path):\n'
                                      '    model.save(path + ".keras", save_format="keras")\n')
    (tmp_path / "legacy.py").write_text("import tf_keras\n\n" + TRAIN)
    found, notes = check(tmp_path, "layers.py")
    assert [f["code"] for f in found] == ["TFI009"] and "Keras 3 assumed" in notes
    assert Project(root=tmp_path).keras.idiom == ""


def test_save_format_given_to_save_weights_is_keras_2(tmp_path: Path) -> None:
    (tmp_path / "layers.py").write_text(LAYER)
    (tmp_path / "save.py").write_text('def save(model, path):\n'
                                      '    model.save_weights(path + ".hdf5", save_format="h5")\n')
    assert check(tmp_path, "layers.py")[0] == []
    assert "`save.py` uses `save_weights(save_format=...)`" in Project(root=tmp_path).keras.idiom


def test_an_entry_point_that_sets_legacy_keras_makes_its_packages_tf_keras_code_keras_2(
        tmp_path: Path) -> None:
    """As retina-face 0.0.19 does (round 3 held-out: 6 FALSE TFI015, Keras 3 assumed): its
    entry module sets TF_USE_LEGACY_KERAS=1 before importing TensorFlow, under an `if`, and
    its model module imports standalone `keras` for TF 1. A script that sets it does so for
    itself (the bundled examples): another script stays Keras 3."""
    layer = LAYER.replace("import tensorflow as tf\n", textwrap.dedent("""\
        import tensorflow as tf

        if int(tf.__version__[0]) == 1:
            import keras
        else:
            from tensorflow import keras
        """))
    entry = ('import os\n\nif os.environ.get("BACKEND", "tf") == "tf":\n'
             '    os.environ["TF_USE_LEGACY_KERAS"] = "1"\n    import tensorflow as tf\n')
    package = tmp_path / "faces"
    package.mkdir()
    (package / "__init__.py").write_text("from faces.main import detect\n")
    (package / "main.py").write_text(entry + "\n\ndef detect():\n    pass\n")
    (package / "layers.py").write_text(layer)
    (tmp_path / "legacy_script.py").write_text(entry)
    (tmp_path / "layers.py").write_text(layer)
    for paths in (["faces/layers.py"], ["."]):
        found, _ = check(tmp_path, *paths)
        assert [(f["path"], f["code"]) for f in found] == (
            [("layers.py", "TFI009")] if paths == ["."] else []), paths
    project = Project(root=tmp_path)
    assert analyze_source(layer, str(package / "layers.py"), project).findings == []
    assert project.keras_of(str(package / "layers.py")).legacy == (
        f"`{Path('faces/main.py')}` sets TF_USE_LEGACY_KERAS=1 for `faces`")
    assert [f.code for f in analyze_source(layer, str(tmp_path / "layers.py"), project).findings
            ] == ["TFI009"]
