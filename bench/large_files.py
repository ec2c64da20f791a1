"""Large Python files of several shapes, and the analysis time of each rule on them.

A rule whose time grows faster than the file lets one crafted file pin the language server
(TFI006 once scanned every module-level name for every `print`: a 2.5 MB file took 103 s).
The shapes:

- `examples`: every rule's documentation Example, its names made unique, repeated — the code
  each rule looks hardest at;
- `module_names`: thousands of module-level names and one graph function full of `print`,
  `open`, container writes and logging (the TFI006 attack);
- `one_function`: a single `tf.function` of the given length;
- `call_chain`: graph functions that each call the next (graph contexts propagate down it);
- `layers`: Keras layers with `call`s, variables and attributes;
- `globals`: many globals, each read in a graph function and reassigned elsewhere (TFI003).

`python bench/rule_scaling.py` prints the time per line of each rule at two sizes side by side
and fails when one grows faster than the file.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable

from tf_insight.check import rules
from tf_insight.check.analyzer import paused_gc
from tf_insight.check.context import ModuleContext
from tf_insight.check.project import Project
from tf_insight.check.source import SourceFile

HEADER = "import logging\nimport numpy as np\nimport tensorflow as tf\nimport keras\n\n"


def _examples(lines: int) -> str:
    blocks = [rule.code_example("Example") for rule in rules.RULES if rule.check is not None]
    defined = re.compile(r"^(?:def|class|async def)\s+(\w+)|^(\w+)\s*=", re.M)
    parts: list[str] = []
    count = 0
    copy = 0
    while count < lines:
        for block in blocks:
            names = {a or b for a, b in defined.findall(block)}
            body = "\n".join(line for line in block.splitlines()
                             if not line.startswith(("import ", "from ")))
            for name in sorted(names, key=len, reverse=True):
                body = re.sub(rf"\b{re.escape(name)}\b", f"{name}_{copy}", body)
            parts.append(body)
            count += body.count("\n") + 1
        copy += 1
    return "\n\n".join(parts)


def _module_names(lines: int) -> str:
    names = [f"value_{i} = {i}\nitems_{i} = []" for i in range(lines // 4)]
    body = []
    for i in range(lines // 4):
        body.append(f"    print('step', x, value_{i})")
        body.append(f"    items_{i}.append(x)" if i % 2 else "    logging.info('x %s', x)")
    return "\n".join(names) + "\n\n@tf.function\ndef step(x):\n" + "\n".join(body) + \
        "\n    return x\n"


def _one_function(lines: int) -> str:
    body = []
    for i in range(lines // 3):
        body.append(f"    y{i} = tf.reduce_sum(x) * {i}")
        body.append(f"    if y{i} > 0:")
        body.append(f"        x = x + y{i}")
    return "@tf.function\ndef step(x):\n" + "\n".join(body) + "\n    return x\n"


def _call_chain(lines: int) -> str:
    count = lines // 4
    parts = ["@tf.function\ndef f_0(x):\n    return f_1(x)\n"]
    for i in range(1, count):
        parts.append(f"def f_{i}(x):\n    print(x)\n    return f_{i + 1}(x) + np.sum(x)\n")
    parts.append(f"def f_{count}(x):\n    return x\n")
    return "\n".join(parts)


def _layers(lines: int) -> str:
    parts = []
    for i in range(lines // 12):
        parts.append(
            f"class Layer{i}(keras.layers.Layer):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            f"        self.w = tf.Variable(1.0)\n"
            "        self.seen = []\n"
            "    def call(self, inputs, training=None):\n"
            "        self.seen.append(inputs)\n"
            "        if tf.executing_eagerly():\n"
            "            print(inputs.numpy())\n"
            "        return inputs * self.w\n")
    return "\n".join(parts)


def _globals(lines: int) -> str:
    parts = []
    for i in range(lines // 8):
        parts.append(f"scale_{i} = 1.0\n@tf.function\ndef use_{i}(x):\n    return x * scale_{i}\n"
                     f"def set_{i}(v):\n    global scale_{i}\n    scale_{i} = v\n")
    return "\n".join(parts)


SHAPES: dict[str, Callable[[int], str]] = {
    "examples": _examples,
    "module_names": _module_names,
    "one_function": _one_function,
    "call_chain": _call_chain,
    "layers": _layers,
    "globals": _globals,
}


def make(shape: str, lines: int) -> str:
    return HEADER + SHAPES[shape](lines)


def rule_seconds(text: str) -> dict[str, float]:
    """CPU seconds of each stage on `text`: parse, the module model, then each rule in turn
    (a table that rules share is counted where it is first asked for); the garbage collector
    paused, as it is when the analyzer runs."""
    with paused_gc():
        return _rule_seconds(text)


def _rule_seconds(text: str) -> dict[str, float]:
    times: dict[str, float] = {}
    start = time.process_time()
    source = SourceFile.parse("large.py", text)
    times["parse"] = time.process_time() - start
    start = time.process_time()
    module = ModuleContext(source, Project())
    module.graph.build()
    times["model"] = time.process_time() - start
    for rule in rules.RULES:
        if rule.check is None:
            continue
        start = time.process_time()
        for _ in rule.check(module):
            pass
        times[rule.code] = time.process_time() - start
    return times
