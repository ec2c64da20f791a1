"""Which heavy modules the bootstrap imports before the debugger attaches.

Importing TensorFlow under the debugger's tracer takes about twice as long, so the bootstrap
imports what the script will import anyway first. Scripts that touch `os.environ` are left
alone: they may configure TensorFlow/Keras (log level, `TF_USE_LEGACY_KERAS`, `KERAS_BACKEND`)
before importing it, and importing earlier would change what they get.
"""

from __future__ import annotations

import ast
from pathlib import Path

HEAVY = ("tensorflow", "keras", "tf_keras")
TF_KERAS_ATTRIBUTE = "tensorflow.keras"  # the bootstrap resolves `tf.keras` (lazy in TF 2.16+)


def modules_to_preimport(script: Path) -> list[str]:
    """Heavy modules the script imports; the bootstrap ignores those that fail to import."""
    try:
        source = script.read_text(encoding="utf-8")
        tree = ast.parse(source, str(script))
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
        return []  # the script itself will report it
    if "environ" in source or "putenv" in source:
        return []
    imported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            imported.add(node.module)
    tops = {name.split(".")[0] for name in imported}
    modules = [name for name in HEAVY if name in tops]
    uses_tf_keras = "tf.keras" in source or any(n.startswith("tensorflow.keras") for n in imported)
    if "tensorflow" in modules and uses_tf_keras:
        modules.append(TF_KERAS_ATTRIBUTE)
    return modules
