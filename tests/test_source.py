"""Positions as editors count them: lines as ast counts them, columns in characters."""

from __future__ import annotations

import ast
import sys
import threading

import pytest

from tf_insight.check.source import SourceFile, parse_module


def test_form_feeds_do_not_shift_lines() -> None:
    source = SourceFile.parse("f.py", "x = 1\n\x0c\ny = 2\r\nz = 3\rw = 4\n")
    assert source.tree is not None
    for node in source.tree.body:
        assert isinstance(node, ast.Assign)
        name = node.targets[0]
        assert isinstance(name, ast.Name)
        assert source.segment(node) == f"{name.id} = {source.segment(node.value)}"
        assert source.lines[node.lineno - 1].startswith(name.id)


def test_columns_are_characters_not_utf8_bytes() -> None:
    source = SourceFile.parse("f.py", "s = 'héllo→'; t = f(s)\n")
    assert source.tree is not None
    call = source.tree.body[1].value  # type: ignore[attr-defined]
    span = source.span(call)
    assert (span.column, span.end_column) == (18, 22)
    assert source.segment(call) == "f(s)"


def test_syntax_errors_and_nul_bytes_are_kept_not_raised() -> None:
    broken = SourceFile.parse("f.py", "def f(:\n")
    assert broken.tree is None and broken.syntax_error is not None
    assert broken.syntax_error.span.line == 1
    nul = SourceFile.parse("f.py", "x = 1\x00\n")
    assert nul.tree is None and nul.syntax_error is not None


def test_noqa_comments() -> None:
    source = SourceFile.parse("f.py", "a = 1  # noqa\nb = 2  # noqa: TFI001,TFI003\nc = 3\n")
    assert source.is_suppressed(1, "TFI009")
    assert source.is_suppressed(2, "TFI003") and not source.is_suppressed(2, "TFI004")
    assert not source.is_suppressed(3, "TFI001")


def test_parsing_from_several_threads_at_once_never_fails() -> None:
    """CPython 3.11 shares the AST converter's recursion depth between threads: two threads
    at different stack depths, parsing while finalizers let others run, fail with
    `SystemError: AST constructor recursion depth mismatch` (a session's verdict analysed files
    beside another session's start). `parse_module` parses one at a time."""
    text = "\n".join(f"def f{i}(x):\n    return [[(y, {{z: [x]}}) for y in x] for z in x]"
                     for i in range(300))
    errors: list[BaseException] = []

    class Finalized:
        def __del__(self) -> None:
            sum(range(50))  # Python code in the middle of a conversion: threads switch

    def parse_at_depth(depth: int) -> None:
        if depth:
            parse_at_depth(depth - 1)
            return
        try:
            for _ in range(15):
                cycle: list[object] = [Finalized()]
                cycle.append(cycle)
                parse_module(text)
        except Exception as error:
            errors.append(error)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=parse_at_depth, args=(depth,))
                   for depth in (0, 5, 10, 20)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    assert errors == []


@pytest.mark.parametrize("text", ['print "hello"\n', "try:\n    x = 1\nexcept ValueError, e:\n    pass\n",
                                  "import re\nword = re.compile(ur'\\w+')\n"])
def test_python_2_code_is_said_to_be_python_2(text: str) -> None:
    problem = SourceFile.parse("legacy.py", text).syntax_error
    assert problem is not None and "this is Python 2 code" in problem.message


def test_a_python_3_syntax_error_is_not_called_python_2() -> None:
    problem = SourceFile.parse("typo.py", "def f(:\n    pass\n").syntax_error
    assert problem is not None and "Python 2" not in problem.message
