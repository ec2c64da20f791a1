"""A graph function that raises while TensorFlow traces it (`.numpy()` of a symbolic tensor,
`len` of one, a tensor used as a Python bool...) never runs in a graph until that is fixed: what
else holds only in a graph there (a print once per trace, a NumPy draw fixed at trace time, a
static shape read as a number) cannot happen yet, and is most often by design, the function
written to run eagerly. Those findings are held back and the first failure says so; what holds
eagerly too (a layer made per call) stays, and so does everything in other functions. In the
precision corpus this left out 20 findings, 18 DEBATABLE and 2 FALSE, and no TRUE one
(bench/precision/judgements.csv: deepdirect==0.2.5's eager `train_step`, 11 `shape` findings;
ml-ocean-bl==0.1's loops in its eagerly fitted Gaussian process)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from tf_insight.check import incremental
from tf_insight.check.project import Project
from tf_insight.check.source import SourceFile

MODULE = textwrap.dedent("""\
    import numpy as np
    import tensorflow as tf


    class Probe(tf.keras.layers.Layer):
        def call(self, inputs):
            print("probe", inputs)
            noise = np.random.uniform()
            dense = tf.keras.layers.Dense(2)
            return dense(inputs) * noise * float(inputs.numpy().mean())


    @tf.function
    def step(x):
        print("step", x)
        return x * 2.0
    """)


def findings(root: Path) -> list[dict[str, object]]:
    result = subprocess.run([sys.executable, "-m", "tf_insight.cli", "check", "--exit-zero",
                             "--no-cache", "--output-format", "json", "module.py"],
                            cwd=root, capture_output=True, text=True, timeout=120, check=True)
    found: list[dict[str, object]] = json.loads(result.stdout)
    return found


def test_a_function_that_fails_while_traced_holds_back_its_graph_only_findings(
        tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "module.py").write_text(MODULE)
    found = findings(tmp_path)
    details = {(f["code"], f["line"]): str(f["detail"]) for f in found}
    assert sorted(details) == [("TFI006", 15), ("TFI008", 9), ("TFI012", 10)]
    assert details["TFI012", 10].endswith(
        "; until this is fixed `Probe.call` cannot be traced, so 2 other finding(s) there that "
        "hold only in a graph (TFI006, TFI017) are held back")


def test_without_the_failure_the_held_back_findings_show() -> None:
    """The same module with `.numpy()` gone, edited as in an editor: the print and the draw of
    `call` come back, and the edit is analysed incrementally (the held-back findings live
    with the failing function's statement, not in a note that would make it whole)."""
    source, project = SourceFile.parse("module.py", MODULE, editable=True), Project()
    analysis, memo = incremental.analyze(source, project)
    assert sorted(f.code for f in analysis.findings) == ["TFI006", "TFI008", "TFI012"]
    edited = MODULE.replace(" * float(inputs.numpy().mean())", "")
    analysis = incremental.analyze(source.edited(edited), project, memo)[0]
    assert analysis.reanalysed is not None
    assert sorted((f.code, f.span.line) for f in analysis.findings) == [
        ("TFI006", 7), ("TFI006", 15), ("TFI008", 9), ("TFI017", 8)]
