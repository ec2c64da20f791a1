"""Names that only resolve through other files: a decorator built on tf.custom_gradient in
another module, a Keras base class in another module, a decorator in an installed package, and
helpers called from graph code in another workspace module."""

from __future__ import annotations

import json
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

from tests.markers import expected
from tf_insight.check.analyzer import check_paths
from tf_insight.check.graph_model import ContextKind
from tf_insight.check.project import Project
from tf_insight.config import Config

PROJECT = Path(__file__).parent / "cross_module" / "project"


def analyses(project: Project) -> dict[str, object]:
    return {Path(a.path).name: a for a in check_paths([PROJECT], project)}


def test_decorator_and_base_class_from_other_modules() -> None:
    project = Project(config=Config(keras="2"), root=PROJECT)
    model = next(a for a in check_paths([PROJECT / "model.py"], project))
    found = {(f.span.line, f.code) for f in model.findings if f.code == "TFI001"}
    assert found == expected(PROJECT / "model.py", "TFI001")
    finding = next(f for f in model.findings if f.code == "TFI001")
    assert finding.related and finding.related[0].path.endswith("pkg/decorators.py")
    assert "`LayerNormalization.call`" in finding.message


def test_decorator_built_on_tf_function_elsewhere_makes_a_graph_context() -> None:
    project = Project(config=Config(keras="2"), root=PROJECT)
    model = next(a for a in check_paths([PROJECT / "model.py"], project))
    assert model.module is not None
    kinds = {f.name: c.kind for f, c in model.module.graph.functions()}
    assert kinds["compiled"] is ContextKind.TF_FUNCTION
    assert kinds["call"] is ContextKind.KERAS_CALL


def test_functions_called_from_graph_code_in_another_module() -> None:
    project = Project(config=Config(keras="2"), root=PROJECT)
    helpers = next(a for a in check_paths([PROJECT], project) if a.path.endswith("helpers.py"))
    assert helpers.module is not None
    contexts = {f.name: c for f, c in helpers.module.graph.functions()}
    assert {"normalize", "clip_gradient"} <= set(contexts)
    assert "unused" not in contexts
    assert contexts["normalize"].kind is ContextKind.CALLED
    assert "step" in contexts["normalize"].reason


def test_a_loss_passed_to_compile_from_another_module_is_graph_code() -> None:
    project = Project(config=Config(keras="3"), root=PROJECT)
    losses = next(a for a in check_paths([PROJECT], project) if a.path.endswith("losses.py"))
    assert {(f.span.line, f.code) for f in losses.findings} == expected(
        PROJECT / "pkg" / "losses.py")
    assert losses.module is not None
    contexts = {f.name: c for f, c in losses.module.graph.functions()}
    assert contexts["spread_loss"].kind is ContextKind.LOSS


def test_decorator_defined_in_an_installed_package(tmp_path: Path) -> None:
    """jedi looks into the site-packages of the interpreter the code runs with."""
    env = tmp_path / "env"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env)], check=True)
    python = env / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True, capture_output=True, text=True).stdout.strip()
    package = Path(purelib) / "gradtools"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(textwrap.dedent("""\
        import tensorflow as tf

        def straight_through(f):
            return tf.custom_gradient(f)
        """))
    code = tmp_path / "work" / "layer.py"
    code.parent.mkdir()
    code.write_text(textwrap.dedent("""\
        import tensorflow as tf
        from gradtools import straight_through

        class Quantize(tf.keras.layers.Layer):
            @straight_through
            def call(self, inputs, training=None):
                return tf.round(inputs), lambda dy: dy
        """))
    # Through the CLI, in its own process: jedi inspects another interpreter with a helper
    # process that lives as long as the analyzing process does.
    result = subprocess.run(
        [sys.executable, "-m", "tf_insight.cli", "check", "--keras", "2", "--python",
         str(python), "--format", "json", str(code)],
        capture_output=True, text=True, timeout=300)
    findings = json.loads(result.stdout)
    assert [(f["code"], f["line"]) for f in findings] == [("TFI001", 5)], result.stderr
    assert sysconfig.get_paths()["purelib"] != purelib  # really another environment


def test_modules_reexported_by_the_project_and_py_function_callbacks() -> None:
    """`from pkg.utils.tensor_utils import tf` is TensorFlow, `tf_keras` from a compat module is
    Keras 2; callbacks chosen by a conditional for tf.py_function run eagerly."""
    root = Path(__file__).parent / "cross_module" / "reexport"
    project = Project(config=Config(), root=root)
    train = next(a for a in check_paths([root / "train.py"], project))
    assert {(f.span.line, f.code) for f in train.findings} == expected(root / "train.py")
