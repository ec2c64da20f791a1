"""Probe points: where in TensorFlow/Keras the session looks, resolved for the user's install.

A probe is a statement inside a library function, found by an anchor pattern rather than a
line number so it survives version changes. Resolution runs `debuggee/environment.py` with
the *user's* interpreter (their TF/Keras, not ours) and never imports TensorFlow.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tf_insight import isolation
from tf_insight.session.processes import run_as_helper

DEBUGGEE_DIR = Path(__file__).resolve().parent / "debuggee"


@dataclass(frozen=True)
class ProbeSpec:
    """`anchor` (a regex) matches the first line of a statement in `function` of `file`."""

    name: str
    package: str
    file: str
    function: str
    anchor: str


_FILTER = r"filtered_tb = _process_traceback_frames\(e\.__traceback__\)"
_CUSTOM_GRADIENT = "python/ops/custom_gradient.py"
_AUTOGRAPH = "python/autograph/impl/api.py"

PROBE_SPECS: tuple[ProbeSpec, ...] = (
    # Keras 3 picks call_fn in Operation.__call__ (Layer.__call__ delegates there).
    ProbeSpec(
        "keras.Layer.__call__",
        "keras",
        "src/ops/operation.py",
        "Operation.__call__",
        r"return call_fn\(",
    ),
    ProbeSpec(
        "keras.Layer.__call__",
        "tf_keras",
        "src/engine/base_layer.py",
        "Layer.__call__",
        r"outputs = call_fn\(",
    ),
    ProbeSpec(
        "keras.Layer.__call__",
        "tf_keras",
        "src/engine/base_layer.py",
        "Layer._infer_output_signature",
        r"outputs = call_fn\(",
    ),
    ProbeSpec(
        "autograph.tf_convert",
        "tensorflow",
        _AUTOGRAPH,
        "tf_convert",
        r"return autograph_artifact\(wrapper\)",
    ),
    ProbeSpec(
        "autograph.converted_call",
        "tensorflow",
        _AUTOGRAPH,
        "converted_call",
        r"if options is None",
    ),
    ProbeSpec(
        "custom_gradient.Bind.__call__",
        "tensorflow",
        _CUSTOM_GRADIENT,
        "Bind.__call__",
        r"return self\._d\(",
    ),
    ProbeSpec(
        "custom_gradient.decorated",
        "tensorflow",
        _CUSTOM_GRADIENT,
        "custom_gradient.decorated",
        r"if context\.executing_eagerly\(\)",
    ),
    ProbeSpec(
        "custom_gradient._graph_mode_decorator",
        "tensorflow",
        _CUSTOM_GRADIENT,
        "_graph_mode_decorator",
        r"if kwargs:",
    ),
    # Not the `with` line: it reports a line event on entry and again on exit.
    ProbeSpec(
        "custom_gradient._eager_mode_decorator",
        "tensorflow",
        _CUSTOM_GRADIENT,
        "_eager_mode_decorator",
        r"result, grad_fn = f\(",
    ),
)

# tf.function calls and traces, and Keras's traceback filter, are hooks, not logpoints: see
# HOOKS in `debuggee/probe.py`.

STEP_PROBES = (
    "keras.Layer.__call__",
    "autograph.tf_convert",
    "autograph.converted_call",
    "custom_gradient.Bind.__call__",
    "custom_gradient.decorated",
    "custom_gradient._graph_mode_decorator",
    "custom_gradient._eager_mode_decorator",
    "tf.function.trace",
)


@dataclass(frozen=True)
class ProbePoint:
    name: str
    path: str
    line: int


@dataclass(frozen=True)
class Environment:
    """What the user's interpreter has: versions (None = missing) and resolved probes."""

    python: str
    executable: str
    versions: dict[str, str | None]
    probes: tuple[ProbePoint, ...]
    problems: tuple[str, ...]

    def has(self, package: str) -> bool:
        return package in self.versions


class UnusableInterpreter(RuntimeError):
    """The user's interpreter cannot run a session (missing, broken, no debugpy...); the
    message says what to do."""


def resolve_environment(
    python: str,
    timeout_s: float = 30.0,
    on_start: Callable[[subprocess.Popen[str]], None] | None = None,
) -> Environment:
    """Run the environment probe with `python`; raise `UnusableInterpreter` with advice.
    `on_start` gets the probe's process as soon as it runs (a session that ends first kills
    it: a hanging interpreter must not outlive the session)."""
    specs = [spec.__dict__ for spec in PROBE_SPECS]
    try:
        resolver = subprocess.Popen(
            [python, "-I", str(DEBUGGEE_DIR / "environment.py"),
             *filter(None, [isolation.bundle_folder("debugpy")])],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=isolation.private_dir(),
            start_new_session=True,
        )
    except FileNotFoundError:
        raise UnusableInterpreter(f"Python interpreter not found: {python}") from None
    run_as_helper(resolver)
    if on_start is not None:
        on_start(resolver)
    try:
        stdout, stderr = resolver.communicate(json.dumps(specs), timeout=timeout_s)
    except subprocess.TimeoutExpired:
        resolver.kill()
        resolver.communicate()
        raise UnusableInterpreter(f"{python} did not answer within {timeout_s:g} s") from None
    if resolver.returncode != 0:
        detail = stderr.strip().splitlines()[-1:] or ["no output"]
        raise UnusableInterpreter(f"{python} could not inspect its packages: {detail[0]}")
    data: dict[str, Any] = json.loads(stdout)
    packages: dict[str, Any] = data["packages"]
    return Environment(
        python=str(data["python"]),
        executable=str(data["executable"]),
        versions={name: info["version"] for name, info in packages.items() if info is not None},
        probes=tuple(ProbePoint(p["name"], p["path"], int(p["line"])) for p in data["probes"]),
        problems=tuple(data["problems"]),
    )


def missing_requirements(environment: Environment) -> str | None:
    """A message saying what to install, or None when the session can run."""
    missing = [name for name in ("debugpy", "tensorflow") if not environment.has(name)]
    if not missing:
        return None
    install = " ".join("tensorflow-cpu" if name == "tensorflow" else name for name in missing)
    return (
        f"{' and '.join(missing)} not installed in {environment.executable} "
        f"(Python {environment.python}). Install with:\n"
        f"  {environment.executable} -m pip install {install}"
    )
