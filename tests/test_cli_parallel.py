"""`tf-insight check --jobs N` gives what one process gives: the same findings in the same
order, cross-module graph contexts included, syntax errors and unreadable files reported."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import pytest

from tests.test_cli_bad_input import run as run_as_user
from tests.test_cli_check import run
from tf_insight.check.parallel import MIN_FILES_PER_JOB

PAIRS = 2 * MIN_FILES_PER_JOB  # enough files for the workers to start


def _project(root: Path) -> Path:
    """Pairs of modules: `steps_k` traces a helper of `helpers_k`, whose `print` is a hazard
    only because of that call (a context learnt across modules); the helpers are large, so
    that dealing by size puts a step and its helper in different workers."""
    (root / "pyproject.toml").write_text("[tool.tf-insight]\n")
    package = root / "app"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for k in range(PAIRS):
        padding = "".join(f"\nCONSTANT_{i} = {i}" for i in range(40 * (k % 3)))
        (package / f"helpers_{k}.py").write_text(
            f"import tensorflow as tf\n\n\ndef log(x):\n    print('step', tf.reduce_sum(x))\n"
            f"    return x\n"
            f"{padding}\n")
        (package / f"steps_{k}.py").write_text(
            f"import tensorflow as tf\n\nfrom app import helpers_{k}\n\n\n@tf.function\n"
            f"def step(x):\n    return helpers_{k}.log(x) + 1\n")
    (package / "broken.py").write_text("def f(:\n")
    return root


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return _project(tmp_path)


def _check(project: Path, jobs: int) -> tuple[list[dict[str, object]], int]:
    completed = run("check", "--output-format", "json", "--jobs", str(jobs), ".", cwd=project)
    assert completed.returncode in (0, 1), completed.stderr
    return json.loads(completed.stdout), completed.returncode


def test_parallel_and_serial_checks_give_the_same_findings_in_the_same_order(
        project: Path) -> None:
    serial, serial_code = _check(project, 1)
    parallel, parallel_code = _check(project, 2)
    assert parallel == serial
    assert parallel_code == serial_code == 1
    cross_module = [f for f in serial if f["code"] == "TFI006"]
    assert len(cross_module) == PAIRS  # every helper's print, known from its step's module
    assert {f["code"] for f in serial} >= {"TFI000", "TFI006"}


def test_an_unreadable_file_is_reported_by_the_parallel_check_too() -> None:
    root = Path(tempfile.mkdtemp(prefix="tfi-parallel-"))  # reachable by the other user
    try:
        root.chmod(0o755)
        _project(root)
        (root / "app" / "secret.py").write_text("x = 1\n")
        (root / "app" / "secret.py").chmod(0)
        outputs = []
        for jobs in ("1", "2"):
            completed = run_as_user("check", "--output-format", "json", "--jobs", jobs, ".",
                                    cwd=root, as_other_user=True)
            assert completed.returncode == 1, completed.stderr
            outputs.append(json.loads(completed.stdout))
        assert outputs[0] == outputs[1]
        assert any(f["code"] == "TFI900" for f in outputs[1])
    finally:
        shutil.rmtree(root)


def test_jobs_must_be_a_positive_number(project: Path) -> None:
    for value in ("0", "-1", "many"):
        completed = run("check", "--jobs", value, ".", cwd=project)
        assert completed.returncode == 2
        assert "--jobs" in completed.stderr
