"""Which heavy modules the bootstrap imports before the debugger attaches.

Importing TensorFlow under the debugger's tracer takes about twice as long, so the bootstrap
imports what the script will import anyway first. Scripts that touch `os.environ` before
importing TensorFlow/Keras are left alone: they may be configuring it (log level,
`TF_USE_LEGACY_KERAS`, `KERAS_BACKEND`), and importing earlier would change what they get.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tf_insight.check.source import parse_module

HEAVY = ("tensorflow", "keras", "tf_keras")
TF_KERAS_ATTRIBUTE = "tensorflow.keras"  # the bootstrap resolves `tf.keras` (lazy in TF 2.16+)


def modules_to_preimport(script: Path) -> list[str]:
    """Heavy modules the script imports; the bootstrap ignores those that fail to import."""
    try:
        source = script.read_text(encoding="utf-8")
        tree = parse_module(source, str(script))
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
        return []  # the script itself will report it
    imported: dict[str, int] = {}  # module → first line importing it
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        else:
            continue
        for name in names:
            imported[name] = min(imported.get(name, node.lineno), node.lineno)
    heavy_lines = [line for name, line in imported.items() if name.split(".")[0] in HEAVY]
    if not heavy_lines:
        return []
    before_import = "\n".join(source.splitlines()[: min(heavy_lines) - 1])
    if "environ" in before_import or "putenv" in before_import:
        return []
    tops = {name.split(".")[0] for name in imported}
    modules = [name for name in HEAVY if name in tops]
    uses_tf_keras = "tf.keras" in source or any(n.startswith("tensorflow.keras") for n in imported)
    if "tensorflow" in modules and uses_tf_keras:
        modules.append(TF_KERAS_ATTRIBUTE)
    return modules
