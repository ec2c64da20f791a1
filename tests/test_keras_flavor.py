"""Which Keras a file runs on, from the file first, then what its project requires (main
requirements and extras' TensorFlow pins, never an optional tf-keras), then what is installed;
and a finding that depends on an assumed Keras says so."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tf_insight.check.imports import ImportMap
from tf_insight.check.keras_flavor import file_keras, project_keras
from tf_insight.check.source import SourceFile

LAYER = textwrap.dedent("""\
    import tensorflow as tf


    class Poly(tf.keras.layers.Layer):
        def __init__(self):
            super().__init__()
            self.b = tf.Variable(0.1)

        def call(self, x):
            return x + self.b
    """)


def flavor_of(root: Path, text: str = LAYER) -> tuple[str, str, bool]:
    source = SourceFile.parse(str(root / "m.py"), text)
    assert source.tree is not None
    from tf_insight.check.index import ModuleIndex

    imports = ImportMap.build(ModuleIndex.build(source.tree), source.tree)
    found = file_keras(text, imports, "auto", project_keras(root, []))
    return found.flavor, found.reason, found.assumed


@pytest.mark.parametrize(("name", "content", "flavor"), [
    ("pyproject.toml", '[project]\nname = "p"\ndependencies = ["tensorflow>=2.0,<2.5"]\n', "2"),
    ("pyproject.toml", '[project]\nname = "p"\ndependencies = ["tensorflow>=2.16"]\n', "3"),
    # an optional tf-keras says nothing of what `tf.keras` is; an extra's TensorFlow pin does
    ("pyproject.toml", '[project]\nname = "p"\ndependencies = []\n'
                       '[project.optional-dependencies]\ntf = ["tensorflow>=2.16", "tf-keras"]\n',
     "3"),
    ("pyproject.toml", '[project]\nname = "p"\ndependencies = ["tf-keras>=2.16"]\n', "2"),
    ("setup.py", 'from setuptools import setup\nBASE = ["numpy"]\n'
                 'setup(name="p", install_requires=BASE + ["tensorflow<2.11"],\n'
                 '      extras_require={"dev": ["tf-keras"]})\n', "2"),
    ("setup.cfg", "[options]\ninstall_requires =\n    tensorflow-addons\n", "2"),
    ("requirements.txt", "tensorflow==2.15.1  # pinned\n", "2"),
    # a bound written with a patch level: `<2.16.0` is `<2.16`
    ("requirements.txt", "tensorflow<2.16.0,>=2.13.0\n", "2"),
    # tensorflow-gpu ends at TF 2.11, whatever its floor
    ("requirements.txt", "tensorflow-gpu>=2.4\n", "2"),
    # numpy capped below the 1.23.5 that TensorFlow 2.16 (Keras 3) needs
    ("PKG-INFO", "Requires-Dist: tensorflow (>=1.14)\nRequires-Dist: numpy (<1.17,>=1.16)\n", "2"),
    # `==1.23` is 1.23.0 alone, older than 1.23.5 (pip resolves such a project to TF 2.13)
    ("setup.py", 'from setuptools import setup\n'
                 'setup(name="p", install_requires=["tensorflow >= 2.4", "numpy ==1.23"])\n', "2"),
    ("PKG-INFO", "Requires-Dist: tensorflow-probability~=0.20.0\n"
                 'Requires-Dist: tf-keras; extra == "legacy"\n', "2"),
])
def test_the_projects_requirements_decide(tmp_path: Path, name: str, content: str,
                                          flavor: str) -> None:
    (tmp_path / name).write_text(content)
    found, reason, assumed = flavor_of(tmp_path)
    assert (found, assumed) == (flavor, False), reason


@pytest.mark.parametrize(("readme", "flavor", "reason"), [
    ("## Dependencies\n* TensorFlow 2.5.0, Keras 2.5.0, Numpy 1.19.5.\n", "2",
     "TensorFlow 2.5 named in README.md"),
    ("Tested with tensorflow>=2.10 and tensorflow==2.17.\n", "3",
     "TensorFlow 2.17 named in README.md"),
])
def test_a_readme_that_names_tensorflow_decides_when_no_requirement_does(
        tmp_path: Path, readme: str, flavor: str, reason: str) -> None:
    (tmp_path / "README.md").write_text(readme)
    assert flavor_of(tmp_path) == (flavor, reason, False)
    (tmp_path / "requirements.txt").write_text("tensorflow>=2.16\n")
    assert flavor_of(tmp_path)[:2] == ("3", "tensorflow >=2.16 in requirements.txt")


def test_a_requires_txt_extra_section_is_an_extra(tmp_path: Path) -> None:
    info = tmp_path / "p.egg-info"
    info.mkdir()
    (info / "requires.txt").write_text("jedi\n\n[tf]\ntf-keras\ntensorflow>=2.16\n")
    assert flavor_of(tmp_path)[:2] == ("3", "tensorflow >=2.16 (an extra) in p.egg-info/requires.txt")


def test_the_file_decides_before_the_project(tmp_path: Path) -> None:
    (tmp_path / "requirements.txt").write_text("tensorflow>=2.16\n")
    legacy = 'import os\nos.environ["TF_USE_LEGACY_KERAS"] = "1"\n' + LAYER
    assert flavor_of(tmp_path, legacy)[:2] == ("2", "the file sets TF_USE_LEGACY_KERAS")
    assert flavor_of(tmp_path, "import tf_keras\n")[0] == "2"


@pytest.mark.parametrize(("line", "legacy"), [
    ('os.environ["TF_USE_LEGACY_KERAS"] = "1"', True),
    ("os.environ['TF_USE_LEGACY_KERAS']='True'", True),
    ('os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")', True),
    ('os.putenv("TF_USE_LEGACY_KERAS", "1")', True),
    ('os.environ.update({"TF_USE_LEGACY_KERAS": "1"})', True),
    ('os.environ["TF_USE_LEGACY_KERAS"] = "0"', False),
    ('use_legacy = os.environ.get("TF_USE_LEGACY_KERAS")', False),
    ("# with tf-keras (TF_USE_LEGACY_KERAS=1) this also builds", False),
])
def test_only_setting_tf_use_legacy_keras_makes_the_file_keras_2(
        tmp_path: Path, line: str, legacy: bool) -> None:
    (tmp_path / "requirements.txt").write_text("tensorflow>=2.16\n")
    assert flavor_of(tmp_path, f"import os\n{line}\n" + LAYER)[0] == ("2" if legacy else "3")


@pytest.mark.parametrize(("line", "idiom"), [
    ("model.fit_generator(batches, epochs=2)", "fit_generator()"),
    ("optimizer = tf.keras.optimizers.Adam(lr=1e-3)", "Adam(lr=...)"),
    ('model.save("saved", save_format="tf")', "save_format=..."),
    ("inputs = tf.keras.Input(shape=64)", "Input(shape=64)"),
    ("from tensorflow.keras.layers.experimental.preprocessing import Rescaling",
     "layers.experimental.preprocessing"),
    ("norm = tf.keras.layers.BatchNormalization(virtual_batch_size=8)", "virtual_batch_size=..."),
    ("tf.keras.backend.set_value(model.optimizer.lr, 1e-4)", "optimizer.lr"),
    ("from tensorflow.keras.layers import DenseFeatures", "DenseFeatures"),
    ('logs = {"lr": self._g_optimizer.lr}', "_g_optimizer.lr"),
    ("class SignStep(tf.keras.optimizers.Optimizer):\n"
     "    def _resource_apply_dense(self, grad, var):\n        pass", "_resource_apply_dense()"),
    ("flag = self.add_weight(\n    name='flag',\n    dtype=tf.bool,\n    initializer=tf.keras"
     ".initializers.Zeros(),\n    synchronization=tf.VariableSynchronization.ON_READ)",
     "add_weight(synchronization=...)"),
    ("self.mask = self.add_weight('mask', (4,), initializer='ones')", "add_weight('mask', ...)"),
    ("self.w = self.add_variable(\n    'w', shape=[4, 3])", "add_variable('w', ...)"),
    ("features = keras.Model(base.inputs, layer.get_output_at(1))", "get_output_at()"),
    ("tf.keras.backend.set_learning_phase(0)", "set_learning_phase()"),
    ("from keras.utils import multi_gpu_model", "multi_gpu_model"),
    ("labels = model.predict_classes(x_test)", "predict_classes()"),
    ("from keras.layers import Bidirectional, CuDNNGRU", "CuDNNGRU"),
    ("hidden = tf.keras.layers.Dense(\n    4, name=prefix + '/hidden')", 'layers.Dense(name=".../...")'),
    ("from keras.layers.core import Dense, Dropout", "keras.layers.core"),
    ("from tensorflow.keras.utils.np_utils import to_categorical", "keras.utils.np_utils"),
    ("from keras.preprocessing.text import Tokenizer", "keras.preprocessing.text"),
    ("from keras.preprocessing.image import ImageDataGenerator, load_img",
     "keras.preprocessing.image.ImageDataGenerator"),
])
def test_what_keras_3_removed_makes_a_file_keras_2(tmp_path: Path, line: str,
                                                  idiom: str) -> None:
    assert flavor_of(tmp_path, LAYER + line + "\n") == (
        "2", f"the file uses `{idiom}`, which only Keras 2 accepts", False)


def test_what_both_accept_or_a_comment_decides_nothing(tmp_path: Path) -> None:
    for line in ("optimizer = tf.keras.optimizers.Adam(learning_rate=1e-3)",
                 "inputs = tf.keras.Input(shape=(64,))", "# model.fit_generator(batches)",
                 "v = tf.Variable(0, synchronization=tf.VariableSynchronization.ON_READ)",
                 'loss = tf.keras.metrics.Mean(name="loss/train")',
                 'hidden = tf.keras.layers.Dense(4, name="hidden")(tf.zeros((1, 2)))  # "a/b"',
                 "from keras.src.layers.normalization import batch_normalization",
                 "augment = tf.keras.preprocessing.image.ImageDataGenerator(rotation_range=10)",
                 "from tensorflow.keras.preprocessing.text import Tokenizer",
                 # Keras 3 lacks it, but code calls it in a rarely taken branch (spektral's
                 # `if training is None:`) and runs on Keras 3 otherwise: no tell
                 "training = K.learning_phase()",
                 "add = tf.keras.layers.Add()  # keras.layers.merging in Keras 3",
                 "w = layer.add_variable((4, 3), initializer='zeros', name='w')"):
        assert flavor_of(tmp_path, LAYER + line + "\n")[2], line  # still an assumption


def test_standalone_keras_follows_the_declared_keras(tmp_path: Path) -> None:
    (tmp_path / "requirements.txt").write_text("tensorflow>=2.16\nkeras<3\n")
    assert flavor_of(tmp_path, "import keras\n")[0] == "2"
    assert flavor_of(tmp_path, LAYER)[0] == "3"  # tf.keras: the TensorFlow's


def test_tf_keras_follows_a_keras_capped_below_3_when_no_tensorflow_is_declared(
        tmp_path: Path) -> None:
    (tmp_path / "requirements.txt").write_text("keras>=2.9,<3\n")  # TF 2.16 needs Keras 3
    assert flavor_of(tmp_path, LAYER)[:2] == (
        "2", "keras >=2.9,<3 in requirements.txt (TensorFlow before 2.16)")


def test_nothing_declared_is_an_assumption_and_says_so(tmp_path: Path) -> None:
    assert flavor_of(tmp_path)[2] is True
    (tmp_path / "m.py").write_text(LAYER)
    result = subprocess.run([sys.executable, "-m", "tf_insight.cli", "check", "m.py",
                             "--output-format", "concise"], cwd=tmp_path, capture_output=True,
                            text=True, timeout=120)
    assert "TFI009" in result.stdout and "(Keras 3 assumed)" in result.stdout
    assert "note:" in result.stderr and "1 finding(s) hold only on it" in result.stderr
    assert "Keras 3 assumed: " in result.stderr  # and why
