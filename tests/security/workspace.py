"""A malicious workspace, made for the tests: every way a cloned repository could get its own
code run by TF Insight just by being opened, each payload recording its name in a marker file
outside the workspace when (if ever) it runs.

- modules that would shadow ours or the standard library's if the workspace folder were on
  `sys.path` (`tf_insight.py`, `tf_insight_server/`, `pygls.py`, `jedi.py`, `json.py`...);
- `[tool.tf-insight] python = "tools/python"` in pyproject.toml, a program that records its run;
- a compiled extension (built here with the C compiler) and a package whose `__init__.py`
  records its import, both imported by the file a user opens, with a decorator and a base class
  that only they define, so that name resolution (jedi) wants to look inside them;
- a `.venv/bin/python` of the workspace's own, for editors that pick a workspace interpreter.

`python -m tests.security.workspace DIR MARKER` makes one (the VS Code end-to-end run uses it).
"""

from __future__ import annotations

import subprocess
import sys
import sysconfig
from pathlib import Path

SHADOWS = ("tf_insight", "pygls", "jedi", "lsprotocol", "json", "debugpy", "tensorflow",
           "site", "sitecustomize", "usercustomize", "encodings")
OPENED = "train.py"  # the file the user opens


def payload(name: str, marker: Path) -> str:
    return f"open({str(marker)!r}, 'a').write({name + chr(10)!r})\n"


def make(root: Path, marker: Path) -> Path:
    """Write the workspace into `root`; return the file a user would open."""
    root.mkdir(parents=True, exist_ok=True)
    for name in SHADOWS:
        (root / f"{name}.py").write_text(payload(f"module {name}", marker))
    server = root / "tf_insight_server"
    server.mkdir(exist_ok=True)
    (server / "__init__.py").write_text(payload("package tf_insight_server", marker))
    (server / "__main__.py").write_text(payload("tf_insight_server.__main__", marker))

    tools = root / "tools"
    tools.mkdir(exist_ok=True)
    program = f"#!/bin/sh\necho 'pyproject python' >> {str(marker)!r}\nexec {sys.executable!r} \"$@\"\n"
    for path in (tools / "python", root / ".venv" / "bin" / "python"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(program.replace("pyproject python", f"interpreter {path.relative_to(root)}"))
        path.chmod(0o755)
    (root / "pyproject.toml").write_text('[tool.tf-insight]\npython = "tools/python"\n')

    package = root / "evilpkg"
    package.mkdir(exist_ok=True)
    (package / "__init__.py").write_text(payload("package evilpkg", marker))
    _build_extension(root / "evilext", "evilext", marker)
    _build_extension(package / "ext", "evilpkg.ext", marker)

    opened = root / OPENED
    opened.write_text(
        "import tensorflow as tf\n"
        "import evilext\n"
        "from evilext import remat\n"
        "from evilpkg.ext import Base, wrap\n"
        "\n"
        "class Block(Base):\n"
        "    @remat\n"
        "    def call(self, inputs, training=None):\n"
        "        print('tracing')\n"
        "        return inputs\n"
        "\n"
        "@wrap\n"
        "@evilext.deco\n"
        "def step(x):\n"
        "    return tf.reduce_sum(x)\n"
        "\n"
        "@tf.function\n"
        "def train(x):\n"
        "    print('tracing train', tf.reduce_sum(x))\n"
        "    return step(x)\n"
    )
    return opened


def _build_extension(stem: Path, dotted: str, marker: Path) -> None:
    """A C extension module whose import records itself (and defines nothing else)."""
    name = dotted.rsplit(".", 1)[-1]
    source = stem.with_suffix(".c")
    source.write_text(
        "#include <Python.h>\n#include <stdio.h>\n"
        f"static struct PyModuleDef def = {{PyModuleDef_HEAD_INIT, \"{dotted}\", NULL, -1, NULL}};\n"
        f"PyMODINIT_FUNC PyInit_{name}(void) {{\n"
        f"  FILE *f = fopen({_c_string(str(marker))}, \"a\");\n"
        f"  if (f) {{ fputs(\"extension {dotted}\\n\", f); fclose(f); }}\n"
        "  return PyModule_Create(&def);\n}\n")
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    include = sysconfig.get_paths()["include"]
    subprocess.run(["cc", "-shared", "-fPIC", f"-I{include}", str(source), "-o",
                    str(stem.with_name(name + suffix))], check=True, capture_output=True)
    source.unlink()


def _c_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def ran(marker: Path) -> list[str]:
    """The payloads that ran, in order (none, if TF Insight is safe)."""
    return marker.read_text().splitlines() if marker.exists() else []


if __name__ == "__main__":
    print(make(Path(sys.argv[1]), Path(sys.argv[2])))
