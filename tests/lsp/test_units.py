"""Fast unit tests of the pure parts: position conversions, settings validation, notebook
joining, noqa edits and session annotation labels."""

from __future__ import annotations

import pytest
from lsprotocol import types

from tf_insight.check.notebook import neutralise_magics
from tf_insight.check.source import split_lines
from tf_insight.findings import Span
from tf_insight.session import Step
from tf_insight_server import conversions as conv
from tf_insight_server.code_actions import noqa_edit
from tf_insight_server.sessions import annotation_from_step
from tf_insight_server.settings import SessionSettings, Settings, parse


@pytest.mark.parametrize(("encoding", "expected"), [
    (conv.UTF16, 10), (conv.UTF8, 13), (conv.UTF32, 9)])
def test_columns_in_each_encoding(encoding: str, expected: int) -> None:
    line = 'x = "😀é" + y'  # 😀 is 2 UTF-16 units, 4 UTF-8 bytes; é is 2 UTF-8 bytes
    column = line.index("+")  # character 9
    assert conv.to_client_column(line, column, encoding) == expected
    assert conv.from_client_column(line, expected, encoding) == column


def test_range_clamps_and_lines_split_like_lsp() -> None:
    lines = split_lines("a = 1\r\nb = '\x0c\u2028'\rc = 2\n")
    assert lines == ["a = 1", "b = '\x0c\u2028'", "c = 2", ""]  # not str.splitlines
    span = Span(3, 0, 9, 99)  # runs past the end (a syntax error at EOF)
    assert conv.to_range(lines, span) == types.Range(
        start=types.Position(line=2, character=0), end=types.Position(line=3, character=0))
    assert conv.from_position(lines, types.Position(line=50, character=3)) == (51, 0)


def test_settings_defaults_wrapper_and_problems() -> None:
    assert parse(None) == (Settings(), [])
    settings, problems = parse({"select": ["tfi001", "TFI01"], "keras": 2,
                                "session": {"maxHits": 5, "timeoutSeconds": 1.5,
                                            "stopAfter": " 20-steps"}})
    assert problems == []
    assert settings == Settings(select=("TFI001", "TFI01"), keras="2",
                                session=SessionSettings(max_hits=5, timeout_seconds=1.5,
                                                        stop_after="20-steps"))
    assert settings.config_overrides() == {"select": ("TFI001", "TFI01"), "ignore": None,
                                           "keras": "2", "python": None}
    settings, problems = parse({"tfInsight": {"ignore": ["E501", "TFI002"], "keras": None,
                                              "session": {"maxHits": True}}})
    assert settings.ignore == ("TFI002",)
    assert problems[0].startswith("tfInsight.ignore: 'E501' is not a rule code")
    assert problems[1].startswith("tfInsight.session.maxHits must be a positive integer")
    assert parse([1, 2])[1] == ["tfInsight: settings must be an object, got [1, 2]; using defaults"]


def test_notebook_magics_keep_line_numbers() -> None:
    assert neutralise_magics("%%bash\nls\n") == "\n\n"
    assert neutralise_magics("import os\n  !ls\n%time f()\n") == "import os\n  pass\npass\n"


def test_noqa_edit_appends_merges_and_skips() -> None:
    lines = ["@deco", "@deco  # noqa: TFI002", "@deco  # noqa", "@deco  # noqa: TFI001"]
    edit = noqa_edit(lines, 0, "TFI001", conv.UTF16)
    assert edit is not None and edit.new_text == "  # noqa: TFI001"
    assert edit.range.start == types.Position(line=0, character=5)
    edit = noqa_edit(lines, 1, "TFI001", conv.UTF16)
    assert edit is not None and edit.new_text == ", TFI001"
    assert edit.range.start == types.Position(line=1, character=len(lines[1]))
    assert noqa_edit(lines, 2, "TFI001", conv.UTF16) is None
    assert noqa_edit(lines, 3, "TFI001", conv.UTF16) is None
    assert noqa_edit(lines, 9, "TFI001", conv.UTF16) is None


def test_session_annotation_is_the_cores_label_with_its_markdown() -> None:
    step = Step.from_record(7, {
        "probe": "keras.Layer.__call__", "executing_eagerly": False,
        "location": {"path": "/venv/keras/src/ops/operation.py", "line": 52},
        "graph": "one_step_on_data", "layer": {"class": "Dropout", "name": "dropout"},
        "call_fn": {"repr": "<Bind>", "chain": [
            {"kind": "custom_gradient Bind", "repr": "<...custom_gradient.Bind object at 0x1>"},
            {"kind": "tf.recompute_grad wrapper",
             "repr": "<function recompute_grad.<locals>.inner at 0x2>"},
            {"kind": "bound method", "repr": "<bound method Dropout.call of <Dropout>>"}]},
        "kwargs": {"training": True},
        "user_frame": {"path": "/w/train.py", "line": 12, "function": "<module>"},
    }).to_dict()
    annotation = annotation_from_step("s1", step)
    assert annotation is not None
    assert annotation.label == step["annotation"]["label"] == (
        "⟵ Dropout.__call__ · graph (one_step_on_data) · "
        "call_fn=Bind(recompute_grad(Dropout.call)) · kwargs: training=True")
    assert (annotation.path, annotation.line) == ("/w/train.py", 12)
    assert annotation.tooltip == step["annotation"]["markdown"]
    assert annotation.tooltip.startswith("**TF Insight — step 8: Dropout.\\_\\_call\\_\\_**")
    assert annotation.to_dict()["line"] == 11  # LSP lines are 0-based
    assert annotation_from_step("s1", {**step, "user_frame": None}) is None


@pytest.mark.parametrize("encoding", [conv.UTF16, conv.UTF8])
def test_fast_text_sync_matches_pygls(encoding: str) -> None:
    import random

    from pygls.workspace import PositionCodec, TextDocument

    from tf_insight_server.textsync import apply_changes

    rng = random.Random(7)
    text = "import tf\n" + "".join(f"x{i} = '😀é{i}'\n" for i in range(30))
    reference = TextDocument("file:///r.py", text, position_codec=PositionCodec(encoding=encoding))
    fast = text
    for _ in range(300):
        lines = reference.source.split("\n")
        line = rng.randrange(len(lines))
        end_line = min(len(lines) - 1, line + rng.choice([0, 0, 1]))
        start = types.Position(line=line, character=conv.to_client_column(
            lines[line], rng.randrange(len(lines[line]) + 1), encoding))
        end = types.Position(line=end_line, character=conv.to_client_column(
            lines[end_line], rng.randrange(len(lines[end_line]) + 1), encoding))
        if (end.line, end.character) < (start.line, start.character):
            start, end = end, start
        change = types.TextDocumentContentChangePartial(
            range=types.Range(start=start, end=end), text=rng.choice(["", "a", "😀", "\n", "é\nb"]))
        reference.apply_change(change)
        fast = apply_changes(fast, [change], encoding)
        assert fast == reference.source
    whole = types.TextDocumentContentChangeWholeDocument(text="x = 1\n")
    assert apply_changes(fast, [change, whole, change], encoding) == apply_changes(
        "x = 1\n", [change], encoding)


def test_fast_text_sync_uses_lsp_line_breaks() -> None:
    from tf_insight_server.textsync import offset_at

    text = "a = '\x0c'\r\nb = 1\rc = 2\n"
    assert offset_at(text, types.Position(line=1, character=0), conv.UTF16) == text.index("b")
    assert offset_at(text, types.Position(line=2, character=4), conv.UTF16) == text.index("2")
    assert offset_at(text, types.Position(line=9, character=0), conv.UTF16) == len(text)


def test_session_output_is_coalesced_and_capped() -> None:
    """A print flood reaches the editor as few, large messages, capped, with a note of how
    much more there was; a trickle arrives in one message shortly after."""
    import time

    from tf_insight_server.sessions import OutputBatcher

    sent: list[tuple[str, str]] = []
    batcher = OutputBatcher(lambda stream, text: sent.append((stream, text)))
    line = "x" * 99 + "\n"
    for _ in range(50_000):  # 5 MB
        batcher.write("stdout", line)
    batcher.close()
    shown = sum(len(text) for stream, text in sent if stream == "stdout")
    assert shown == OutputBatcher.CAP
    assert len(sent) <= OutputBatcher.CAP // OutputBatcher.CHUNK + 2
    assert "4,000,000 more characters" in sent[-1][1]

    sent.clear()
    trickle = OutputBatcher(lambda stream, text: sent.append((stream, text)))
    trickle.write("stdout", "epoch 1\n")
    trickle.write("stdout", "epoch 2\n")
    deadline = time.monotonic() + 5
    while not sent and time.monotonic() < deadline:
        time.sleep(0.02)
    assert sent == [("stdout", "epoch 1\nepoch 2\n")]
