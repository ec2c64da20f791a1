"""`SourceFile.edited` (reparse only the statements an edit touched) gives exactly the tree
and the syntax error a full parse gives, and the analysis of an edited file the findings of
a fresh one, for any sequence of edits."""

from __future__ import annotations

import ast
import keyword
import random
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tf_insight.check import incremental
from tf_insight.check import source as source_module
from tf_insight.check.analyzer import analyze_source
from tf_insight.check.project import Project
from tf_insight.check.source import SourceFile

ROOT = Path(__file__).parent
FILES = sorted([*(ROOT / "rules" / "fixtures").glob("*.py"), *(ROOT.parent / "examples").glob("*.py")])
# findings that cross top-level statements everywhere (tests/incremental)
INTERACTIONS = ROOT / "incremental" / "interactions.py"
# what typing produces: characters, line breaks, openers that swallow the following statements,
# decorators for the next statement, dedents, whole statements
SNIPPETS = ["x", "(", ")", '"""', "'", "\n", "\n\n", "    ", "@tf.function\n", "def f():\n",
            "#", "\\\n", "else:\n", "return 1\n", "class C:\n    pass\n", "]", ":", "print(x)\n",
            "elif x:\n", "except E:\n", "finally:\n", "\f", "\t"]


def full(text: str) -> tuple[str | None, object]:
    source = SourceFile.parse("m.py", text, editable=True)
    return _dump(source)


def _dump(source: SourceFile) -> tuple[str | None, object]:
    tree = ast.dump(source.tree, include_attributes=True) if source.tree is not None else None
    return tree, source.syntax_error


edits = st.lists(st.tuples(st.floats(0, 1), st.integers(0, 12), st.sampled_from(SNIPPETS)),
                 min_size=1, max_size=6)


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(FILES), edits)
def test_edits_parse_like_the_whole_text(path: Path, changes: list[tuple[float, int, str]]) -> None:
    text = path.read_text(encoding="utf-8")
    source = SourceFile.parse(str(path), text, editable=True)
    for where, deleted, inserted in changes:
        at = int(where * len(text))
        text = text[:at] + inserted + text[at + deleted:]
        source = source.edited(text)
        assert source.text == text
        assert source.lines == SourceFile.parse("m.py", text).lines
        assert _dump(source) == full(text)


def test_typing_inside_a_function_reuses_the_other_statements() -> None:
    text = "import tensorflow as tf\n\n\ndef a():\n    return 1\n\n\ndef b():\n    return 2\n"
    source = SourceFile.parse("m.py", text, editable=True)
    assert source.tree is not None
    first, _, last = source.tree.body
    edited = source.edited(text.replace("return 1", "return 10\n    x = 1"))
    assert edited.tree is not None
    assert edited.tree.body[0] is first and edited.tree.body[2] is last
    assert last.lineno == 9  # moved down by the added line
    assert _dump(edited) == full(edited.text)


def test_an_opened_string_is_parsed_with_the_whole_text() -> None:
    text = "def a():\n    pass\n\n\ny = 1  # '''\n"
    edited = SourceFile.parse("m.py", text).edited(text.replace("    pass", "    s = '''pass"))
    assert _dump(edited) == full(edited.text)
    assert edited.syntax_error is None  # the string swallowed `y = 1` and ends in its comment


def test_a_broken_edit_gets_the_syntax_error_of_the_whole_text() -> None:
    """CPython explains a failing text in a second pass whose rules may blame an earlier, valid
    statement (`return print - offset` read as Python 2's `print`): the edited file says what
    a fresh parse says (found by the random edits below, on tfi039's fixture)."""
    text = "def shift(offset):\n    return print - offset\n\n\nshown = str(shift(1))\n"
    broken = text.replace("str(shift(1))", "str(shift\n(1) shift)")
    edited = SourceFile.parse("m.py", text, editable=True).edited(broken)
    fresh = SourceFile.parse("m.py", broken)
    assert edited.syntax_error is not None and fresh.syntax_error is not None
    assert edited.syntax_error == fresh.syntax_error


def typed(text: str, where: float, deleted: int, inserted: str) -> str:
    at = int(where * len(text))
    return text[:at] + inserted + text[at + deleted:]


NAME = re.compile(r"\b[A-Za-z_]\w*\b")
# statements that move what crosses top-level statements: calls of helpers, mutations, global
# writes, gradient wrappers, generators, NumPy conversions, mode checks
STATEMENTS = ["{a}({b})", "global {a}", "{a}.append({b})", "{a} = {b}", "{a}[0] = {b}",
              "{a} = tf.custom_gradient({b})", "{a} = np.random.default_rng()", "print({a})",
              "return {a}.numpy()", "{a} = tf.function({b})", "{a}.{b} = 1", "del {a}[0]",
              "{a} += 1", "x = {a}({b}, training=True)", "if tf.executing_eagerly(): {a}({b})",
              "{a} = {b}.numpy()", "if tf.executing_eagerly(): return {a}", "{a} = {b} * 2",
              "return {a}"]


def rewritten(text: str, rng: random.Random) -> str:
    """A statement-level edit: a line deleted, a line copied before another (at its
    indentation), a statement inserted with names from nearby lines, or a name replaced."""
    lines = text.split("\n")
    at = rng.randrange(len(lines))
    indent = lines[at][:len(lines[at]) - len(lines[at].lstrip())]
    names = sorted(set(NAME.findall(text)) - set(keyword.kwlist)) or ["x"]
    nearby = sorted(set(NAME.findall("\n".join(lines[max(at - 3, 0):at + 3])))
                    - set(keyword.kwlist)) or names
    kind = rng.choice(["delete", "copy", "insert", "insert", "rename"])
    if kind == "delete":
        del lines[at]
    elif kind == "copy":
        lines.insert(at, indent + rng.choice(lines).lstrip())
    elif kind == "insert":
        a, b = (rng.choice(nearby if rng.random() < 0.7 else names) for _ in range(2))
        lines.insert(at, indent + rng.choice(STATEMENTS).format(a=a, b=b))
    else:
        found = [m for m in NAME.finditer(lines[at]) if not keyword.iskeyword(m.group())]
        if found:
            name = rng.choice(found)
            lines[at] = lines[at][:name.start()] + rng.choice(names) + lines[at][name.end():]
    return "\n".join(lines)


def parses(text: str) -> bool:
    try:
        ast.parse(text)
    except (SyntaxError, ValueError):
        return False
    return True


@settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.one_of(st.sampled_from(FILES), st.just(INTERACTIONS)), edits, st.randoms())
def test_edited_files_get_the_findings_of_a_fresh_analysis(
        monkeypatch: pytest.MonkeyPatch, path: Path, typing: list[tuple[float, int, str]],
        rng: random.Random) -> None:
    """What an edited file reuses of its last analysis (nodes, per-statement indexes, the
    findings of the statements the edit left alone) changes nothing: for keys typed, and for
    statement-level edits that keep the file valid (those move what crosses statements).
    Reuse is not given up when most statements are to be analysed again: so it is tested
    more often."""
    monkeypatch.setattr(incremental, "MOST", 1.0)
    text = path.read_text(encoding="utf-8")
    source, project = SourceFile.parse("m.py", text, editable=True), Project()
    memo = incremental.analyze(source, project)[1]
    rewrites = rng.randint(1, 10)
    for number in range(rewrites + len(typing)):  # keys typed last: they mostly break the file
        if number >= rewrites:
            text = typed(text, *typing[number - rewrites])
        else:
            edited = rewritten(text, rng)
            if parses(text) and not parses(edited) and rng.random() < 0.9:
                continue  # mostly, a statement-level edit that breaks the file is not made
            text = edited
        source = source.edited(text)
        analysis, memo = incremental.analyze(source, project, memo)
        fresh = analyze_source(text, "m.py", Project())
        assert analysis.findings == fresh.findings
        if fresh.module is not None:  # what editors show on hover, too
            assert analysis.graph_facts == fresh.module.graph.facts()


# Edits of a plain class whose method graph code reaches through code outside its caller
# (`brighten = Brighten(0.5)` called by a dataset function; an instance given to a
# tf.function's parameter): the caller's kept part of the model must not keep calling the
# method as the last version of the class had it.
SYNDROME = ("        self.matrix = None\n\n    def __call__(self, bits):\n"
            "        if self.matrix is None:\n            self.matrix = tf.constant(")
EDITS_OF_A_CLASS_CALLED_THROUGH_AN_OBJECT = [
    ("tfi012_numpy_in_graph.py", "\n\n\nbrighten = Brighten(0.5)", "\n\nbrighten = Brighten(0.5)"),
    ("tfi006_trace_time_side_effect.py", SYNDROME, "        print(rows)\n" + SYNDROME),
]


@pytest.mark.parametrize(("name", "old", "new"), EDITS_OF_A_CLASS_CALLED_THROUGH_AN_OBJECT)
def test_an_edited_class_called_through_an_object_keeps_its_findings(
        monkeypatch: pytest.MonkeyPatch, name: str, old: str, new: str) -> None:
    monkeypatch.setattr(incremental, "MOST", 1.0)
    text = (ROOT / "rules" / "fixtures" / name).read_text(encoding="utf-8")
    assert text.count(old) == 1
    source, project = SourceFile.parse("m.py", text, editable=True), Project()
    memo = incremental.analyze(source, project)[1]
    edited = text.replace(old, new)
    analysis = incremental.analyze(source.edited(edited), project, memo)[0]
    assert analysis.reanalysed is not None  # reused, not analysed whole
    assert analysis.findings == analyze_source(edited, "m.py", Project()).findings


def test_an_edit_after_a_text_that_did_not_parse_starts_from_the_last_that_did() -> None:
    text = "def a():\n    return 1\n\n\ndef b():\n    return 2\n"
    source = SourceFile.parse("m.py", text, editable=True)
    assert source.tree is not None
    kept = source.tree.body[1]
    broken = source.edited(text.replace("return 1", "return f(1"))
    assert broken.tree is None and broken.syntax_error is not None
    fixed = broken.edited(text.replace("return 1", "return f(1)"))
    assert fixed.tree is not None and fixed.tree.body[1] is kept
    assert _dump(fixed) == full(fixed.text)


BEFORE = "import tensorflow as tf\n\n\ndef a(x):\n    if x:\n        return 1\n\n\n"
AFTER = "\n\ndef c():\n    return [1,\n            2]\n\n\nclass D:\n    pass\n"


@pytest.mark.parametrize(("edited", "whole"), [
    ("def b():\n    return f(1\n", True),  # '(' was never closed, at the end of the file
    ("def b():\n    s = \'\'\'x\n", True),  # unterminated string (detected at line N)
    ("def b():\n    return (1]\n", True),  # ']' does not match '(' on line N
    ("def b():\n", True),  # expected an indented block after function definition on line N
    ("def b(:\n    pass\n", True),
    ("@tf.function\n", False),  # a decorator for the next statement: the rest parses
    ("else:\n    pass\n", True),  # a clause that could continue the statement before it
    ("  def b():\n    pass\n", True),  # an indented first line could continue its block
])
def test_a_statement_that_does_not_parse_gets_the_whole_texts_error_or_tree(
        edited: str, whole: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Found by parsing from the edited statement to the end of the file when that parses (the
    lines before it are the same); the whole text is parsed when its first line could continue
    them, or for a syntax error (CPython may blame a line before the edit)."""
    source = SourceFile.parse("m.py", BEFORE + "def b():\n    pass\n" + AFTER, editable=True)
    parsed: list[str] = []
    real = source_module.parse_module
    monkeypatch.setattr(source_module, "parse_module",
                        lambda text, *a: parsed.append(text) or real(text, *a))
    edited_source = source.edited(BEFORE + edited + AFTER)
    monkeypatch.undo()
    assert _dump(edited_source) == full(edited_source.text)
    assert any(text.startswith("import tensorflow") for text in parsed) is whole
