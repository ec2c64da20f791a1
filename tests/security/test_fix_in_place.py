"""`check --fix` changes exactly what a finding's fix says, and nothing else, whatever the file.

Python ends a line at \\n, \\r\\n and \\r only; `str.splitlines` also ends one at a form feed,
U+2028/U+2029, \\x1c-\\x1e and \\x85, and a fix placed by its lines landed in the wrong place
(`def f(x):` became `def tf.print`). A property test writes files with every kind of line
break, encoding and oddity before a finding, and checks that the fixed file is the same file
with that one `print` turned into `tf.print`, byte for byte, and that it parses."""

from __future__ import annotations

import ast
import os
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tf_insight.cli import build_parser

BREAKS = ("\n", "\r\n", "\r")
ODD = ("\x0c", "\u2028", "\u2029", "\x1c", "\x1d", "\x1e", "\x85", "é", "中", "\t", "𝔘")
LATIN_1_ODD = ("\x0c", "\x1c", "\x1d", "\x1e", "\x85", "é", "\t")


def fix(path: Path) -> int:
    args = build_parser("check").parse_args(["check", "--fix", str(path)])
    return int(args.func(args))


@st.composite
def files(draw: st.DrawFn) -> tuple[bytes, bytes]:
    """A file with a TFI006 `print` and the same file with the `print` fixed, as bytes."""
    encoding = draw(st.sampled_from(["utf-8", "utf-8-sig", "latin-1"]))
    odd = LATIN_1_ODD if encoding == "latin-1" else ODD
    oddity = st.text(st.sampled_from((*odd, "x", " ")), min_size=1, max_size=6)
    noise = st.one_of(
        oddity.map(lambda text: f"# {text}"),
        oddity.map(lambda text: f"label = {text!r}"),
        st.just("\x0c"),  # a form feed alone on a line: Python allows it
        st.just(""),
    )
    header = ["# -*- coding: latin-1 -*-"] if encoding == "latin-1" else []
    lines = [*header, *draw(st.lists(noise, max_size=6)), "import tensorflow as tf", "",
             *draw(st.lists(noise, max_size=3)), "@tf.function", "def f(x):"]
    indent = draw(st.sampled_from(["    ", "\t"]))
    lines += [f"{indent}{draw(noise)}", f"{indent}PRINT(x)  # {draw(oddity)}",
              f"{indent}return x", *draw(st.lists(noise, max_size=2))]
    breaks = draw(st.lists(st.sampled_from(BREAKS), min_size=len(lines), max_size=len(lines)))
    text = "".join(line + end for line, end in zip(lines, breaks, strict=True))
    return (text.replace("PRINT", "print").encode(encoding),
            text.replace("PRINT", "tf.print").encode(encoding))


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(files())
def test_a_fix_changes_exactly_its_span(case: tuple[bytes, bytes]) -> None:
    original, expected = case
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "train.py"
        path.write_bytes(original)
        fix(path)
        fixed = path.read_bytes()
    assert fixed == expected
    ast.parse(fixed)


def test_a_fix_keeps_the_files_mode(tmp_path: Path) -> None:
    path = tmp_path / "train.py"
    path.write_text("import tensorflow as tf\n\n@tf.function\ndef f(x):\n    print(x)\n")
    path.chmod(0o751)
    fix(path)
    assert "tf.print(x)" in path.read_text()
    assert path.stat().st_mode & 0o777 == 0o751
    assert [p.name for p in tmp_path.iterdir()] == ["train.py"]  # no temporary file left


def test_a_fix_through_a_link_fixes_the_file_it_leads_to(tmp_path: Path) -> None:
    path = tmp_path / "train.py"
    path.write_text("import tensorflow as tf\n\n@tf.function\ndef f(x):\n    print(x)\n")
    folder = tmp_path / "linked"
    folder.mkdir()
    linked = folder / "train.py"
    os.symlink(path, linked)
    fix(linked)
    assert linked.is_symlink()
    assert "tf.print(x)" in path.read_text()
