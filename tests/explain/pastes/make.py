"""Make the paste corpus: the cases of `tests/explain/cases.py` (and the negatives of
`scripts/not_graph_errors.py`) run on real TensorFlow, in several environments, captured as
the user sees them, and written path-neutral under `tests/explain/pastes/<environment>/`.

Environments (each skipped, with a message, if its interpreter is missing):
- `terminal-tf2.21-keras3`, `terminal-tf2.21-keras2`: this interpreter's TF 2.21, stderr of
  `python script.py case` (Keras 3, and tf-keras under TF_USE_LEGACY_KERAS=1);
- `terminal-tf2.15`: TF 2.15 (Keras 2 era wordings) in `$TFI_TF215_PYTHON`
  (default `~/.cache/tf-insight/venvs/tf215/bin/python`);
- `ipython8-tf2.21`: a real IPython kernel (ipykernel, driven by jupyter_client) of this
  interpreter: the script is a cell, the traceback is what Jupyter shows (ANSI and all);
- `terminal-tf2.4`: TF 2.4 (Python 3.8, NumPy 1.21: the pairing that breaks Keras RNNs) in
  `$TFI_TF24_PYTHON` (default `~/.cache/tf-insight/venvs/tf24/bin/python`: a Python 3.8 venv
  with `tensorflow-cpu==2.4.0 numpy==1.21.6`): the old TF cases, and the graph-mode cases
  whose TF 2.4 wording differs;
- `ipython7-tf2.15`: the same with IPython 7.34 and ipykernel 6 in the TF 2.15 venv
  (`/tmp/ipykernel_<pid>/<n>.py in f(x)` frames);
- `ipython7-colab-tf2.15`: IPython 7.34 with ipykernel 5.5, as Colab ran for years
  (`<ipython-input-N-…> in f(x)` frames), in `$TFI_IPYKERNEL5_PYTHON` (default
  `~/.cache/tf-insight/venvs/ipykernel5/bin/python`: a venv with `ipykernel==5.5.6
  ipython==7.34.0 jupyter_client==7.4.9` and a `.pth` file naming the TF 2.15 venv's
  site-packages).

Paths are made neutral: the scripts' folder becomes `/home/user/project`, the interpreter's
prefix `/opt/venv`. `manifest.json` lists every paste with what explaining it must give.

    .venv/bin/python -m tests.explain.pastes.make [--only ENV ...]   (about 25 minutes)
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any

from tests.explain.cases import CASES, OLD_TF_CASES, SCRIPTS, Case, markers

HERE = Path(__file__).resolve().parent
PROJECT = "/home/user/project"
PREFIX = "/opt/venv"
TF215 = Path(os.environ.get("TFI_TF215_PYTHON")
             or Path.home() / ".cache/tf-insight/venvs/tf215/bin/python")
TF24 = Path(os.environ.get("TFI_TF24_PYTHON")
            or Path.home() / ".cache/tf-insight/venvs/tf24/bin/python")
IPYKERNEL5 = Path(os.environ.get("TFI_IPYKERNEL5_PYTHON")
                  or Path.home() / ".cache/tf-insight/venvs/ipykernel5/bin/python")
# Our cached venvs, however IPython abbreviates them (`~/.cache/...`).
CACHED_VENV = re.compile(r"(?:~|/[\w/.-]*?)/\.cache/tf-insight/venvs/[\w.-]+")
NEGATIVES = SCRIPTS / "not_graph_errors.py"
KERNEL = HERE.parent.parent / "kernel.py"  # runs in the environment's interpreter


def negative_cases() -> list[Case]:
    names = re.findall(r'^    "(\w+)": ', NEGATIVES.read_text(), re.M)
    return [Case("not_graph_errors.py", (name,), "3", "", name, "") for name in names]


def neutral(text: str, python: Path) -> str:
    prefix = subprocess.run([str(python), "-c", "import sys; print(sys.prefix)"],
                            capture_output=True, text=True).stdout.strip()
    base = subprocess.run([str(python), "-c", "import sys; print(sys.base_prefix)"],
                          capture_output=True, text=True).stdout.strip()
    for old, new in ((str(SCRIPTS), PROJECT), (prefix, PREFIX), (base, "/usr/local"),
                     (str(Path.home()), "/home/user")):
        if old:
            text = text.replace(old, new)
    text = CACHED_VENV.sub(PREFIX, text)
    return re.sub(r"/tmp/ipykernel_\d+/", "/tmp/ipykernel_4242/", text)


def run_terminal(case: Case, python: Path, legacy: bool, workdir: Path) -> str:
    env = {k: v for k, v in os.environ.items() if k != "TF_USE_LEGACY_KERAS"}
    if legacy:
        env["TF_USE_LEGACY_KERAS"] = "1"
    done = subprocess.run([str(python), str(case.path), *case.arguments], cwd=workdir, env=env,
                          capture_output=True, text=True, timeout=600)
    return done.stderr


def run_kernel(case: Case, python: Path, legacy: bool, workdir: Path) -> str:
    done = subprocess.run([str(python), str(KERNEL), "script", str(case.path),
                           json.dumps(list(case.arguments)), "1" if legacy else "0"],
                          cwd=workdir, capture_output=True, text=True, timeout=900)
    return done.stdout


ENVIRONMENTS: dict[str, tuple[Path, str, bool]] = {
    # name: (python, runner, legacy keras)
    "terminal-tf2.21-keras3": (Path(sys.executable), "terminal", False),
    "terminal-tf2.21-keras2": (Path(sys.executable), "terminal", True),
    "terminal-tf2.15": (TF215, "terminal", False),
    "terminal-tf2.4": (TF24, "terminal", False),
    "ipython8-tf2.21": (Path(sys.executable), "kernel", False),
    "ipython7-tf2.15": (TF215, "kernel", False),
    "ipython7-colab-tf2.15": (IPYKERNEL5, "kernel", False),
}


# The graph-mode cases TF 2.4 raises too (in its own words); the others need newer APIs.
TF24_GRAPH_CASES = ("tensor_bool", "tensor_iter", "numpy_attr", "numpy_convert",
                    "singleton_variable", "out_of_scope", "retracing")


def cases_for(environment: str) -> list[Case]:
    if environment == "terminal-tf2.4":
        return OLD_TF_CASES + [case for case in CASES if case.script == "graph_errors.py"
                               and case.arguments[0] in TF24_GRAPH_CASES]
    keras = "2" if environment.endswith(("keras2", "tf2.15")) else "3"
    chosen = [c for c in CASES if c.keras == keras or c.script == "graph_errors.py"]
    unique = list({(c.script, c.arguments): c for c in chosen}.values())
    return unique + negative_cases()


def paste_name(case: Case) -> str:
    return f"{Path(case.script).stem}-{'-'.join(case.arguments)}.txt"


def expectations(environment: str) -> dict[str, Any]:
    """What explaining each paste of `environment` must give, from the scripts' markers."""
    expected = {}
    for case in cases_for(environment):
        lines = markers(case.path)
        line = lines.get(("raise", case.marker))  # warnings name no user frame
        expected[f"{environment}/{paste_name(case)}"] = {
            "entry": case.entry or None,
            "script": case.script,
            "line": line if case.entry else None,
            "cell": ENVIRONMENTS[environment][1] == "kernel",
        }
    return expected


def write_manifest() -> None:
    manifest: dict[str, Any] = {}
    for environment in ENVIRONMENTS:
        if (HERE / environment).is_dir():
            manifest.update(expectations(environment))
    (HERE / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", nargs="*", default=list(ENVIRONMENTS))
    parser.add_argument("--cases", nargs="*", help="only pastes whose name contains one of these")
    args = parser.parse_args()
    workdir = Path(os.environ.get("TMPDIR", "/tmp")) / "tfi-pastes"
    workdir.mkdir(exist_ok=True)
    for environment in args.only:
        python, runner, legacy = ENVIRONMENTS[environment]
        if not python.exists():
            print(f"{environment}: {python} missing, skipped", file=sys.stderr)
            continue
        cases = [case for case in cases_for(environment)
                 if not args.cases or any(part in paste_name(case) for part in args.cases)]
        run = run_kernel if runner == "kernel" else run_terminal
        with ThreadPoolExecutor(max_workers=2) as pool:
            outputs = list(pool.map(partial(run, python=python, legacy=legacy, workdir=workdir),
                                    cases))
        folder = HERE / environment
        folder.mkdir(exist_ok=True)
        for case, output in zip(cases, outputs, strict=True):
            (folder / paste_name(case)).write_text(neutral(output, python))
            print(f"{environment}/{paste_name(case)}: {len(output)} characters", file=sys.stderr)
        write_manifest()


if __name__ == "__main__":
    main()
