"""`check --fix` on a notebook rewrites only the fixed cells' source strings; every other byte
stays (outputs holding a lone surrogate, tab or CRLF indentation, `1e400`, duplicate keys), or
it refuses, says why, and leaves the file untouched. It used to re-dump the whole JSON (one
line, LF, `Infinity`, keys dropped) and, on a lone surrogate, leave a 0-byte file."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

CODE_CELL = ('{{"cell_type": "code", "execution_count": 1, "id": "c2", {metadata}"source": '
             '{source}, "outputs": [{{"name": "stdout", "output_type": "stream", '
             '"text": ["\\ud83d \\u00e9 caf\\u00e9\\n"]}}]}}')
LINES = ['"import tensorflow as tf\\n"', '"\\n"', '"@tf.function\\n"', '"def f(x):\\n"',
         '"    print(x)\\n"', '"    return x"']


def notebook(newline: str, indent: str, source: str, metadata: str = "") -> str:
    cells = [
        '{"cell_type": "markdown", "id": "m1", "metadata": {}, "source": ["# Title"]}',
        CODE_CELL.format(source=source, metadata=metadata),
    ]
    parts = [
        "{",
        f'{indent}"cells": [',
        *(f"{indent}{indent}{cell}," for cell in cells[:-1]),
        f"{indent}{indent}{cells[-1]}",
        f"{indent}],",
        f'{indent}"metadata": {{"big": 1e400, "dup": 1, "dup": 2, "kernelspec": '
        '{"name": "python3", "display_name": "Python 3", "language": "python"}},',
        f'{indent}"nbformat": 4,',
        f'{indent}"nbformat_minor": 5',
        "}",
    ]
    return newline.join(parts) + newline


def check_fix(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tf_insight.cli", "check", "--fix", str(path)],
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
@pytest.mark.parametrize("indent", [" ", "\t"])
@pytest.mark.parametrize("as_list", [True, False])
def test_only_the_fixed_source_changes(tmp_path: Path, newline: str, indent: str,
                                       as_list: bool) -> None:
    source = (f"[{', '.join(LINES)}]" if as_list
              else '"' + "".join(line[1:-1] for line in LINES) + '"')
    original = notebook(newline, indent, source)
    path = tmp_path / "train.ipynb"
    path.write_bytes(original.encode("utf-8"))
    result = check_fix(path)
    assert "fixed 1 finding" in result.stderr, result.stderr
    expected = original.replace("    print(x)", "    tf.print(x)")
    assert path.read_bytes() == expected.encode("utf-8")


@pytest.mark.parametrize("new_source", [
    "import tensorflow as tf\n\n@tf.function\ndef f(x):\n    tf.print(x)\n    return x",  # a line
    "import tensorflow as tf\nimport numpy as np\n\n@tf.function\ndef f(x):\n    return x",  # +/-
    "# top\nimport tensorflow as tf\n\n@tf.function\ndef f(x):\n    print(x)\n    return x",  # first
    "import tensorflow as tf\n\n@tf.function\ndef f(x):\n    print(x)\n    return x\n# end",  # last
    "@tf.function\ndef f(x):\n    print(x)\n    return x",  # the first lines removed
    "",  # everything removed
    "x = 1\x0cy = 2\n",  # a form feed: nbformat splits there too
])
@pytest.mark.parametrize("indent", [" ", "\t"])
def test_any_new_source_reads_back_and_nothing_else_moves(indent: str, new_source: str) -> None:
    from tf_insight.check.notebook import Notebook

    source = "[\n" + ",\n".join(f"{indent * 3}{line}" for line in LINES) + f"\n{indent * 2}]"
    original = notebook("\n", indent, source)
    written = Notebook.parse(original).with_sources({2: new_source})
    assert Notebook.parse(written).cell_source(2) == new_source
    before, after = (text.split('"id": "c2", "source": [', 1) for text in (original, written))
    assert before[0] == after[0]  # all before the list, byte for byte
    tail = '"outputs": [{"name": "stdout"'
    assert original[original.index(tail):] == written[written.index(tail):]


def test_a_source_it_cannot_place_exactly_is_refused(tmp_path: Path) -> None:
    """A cell with two `source` keys: JSON readers keep the last, and which one an editor
    shows is anyone's guess. Refused, said, untouched."""
    decoy = '["print(\'decoy\')"], '
    original = notebook("\n", " ", f"[{', '.join(LINES)}]", metadata=f'"source": {decoy}')
    path = tmp_path / "train.ipynb"
    path.write_text(original)
    result = check_fix(path)
    assert "not fixing" in result.stderr and "the file is unchanged" in result.stderr
    assert path.read_text() == original
    assert result.returncode == 1  # the finding is still there
