"""Hover, code actions (quick fix applied, noqa, explain rule) and the explain commands."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

from tests.lsp.conftest import (
    DATA,
    apply_edits,
    diagnostics_for,
    marker,
    open_file,
    plain,
    replace_all,
    start,
)


async def test_hover_on_finding_and_graph_function(client: LanguageClient, workspace: Path) -> None:
    await start(client, workspace)
    path = workspace / "seed_layernorm.py"
    uri = open_file(client, path)
    await diagnostics_for(client, uri)

    line, column = marker(path, "decorator")
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        position=types.Position(line=line, character=column + 3)))
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    text = hover.contents.value
    assert "TFI001" in text and "Why is this bad?" in text and "Use instead" in text
    # the finding's own why and fix, besides its one-line message
    assert "Why: " in text and "custom_gradient rejects keyword arguments" in text
    assert "Fix: apply it to an inner function" in text

    line, column = marker(path, "step")  # `def step` under @tf.function
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        position=types.Position(line=line, character=column + 5)))
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert "runs in graph mode" in hover.contents.value
    assert "tf.function" in hover.contents.value

    line, column = marker(path, "fractal-call")  # a Keras `call`
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        position=types.Position(line=line, character=column + 5)))
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert "Fractal2D.call" in hover.contents.value and "graph mode" in hover.contents.value

    # a loss passed to compile: hover on the name where it is passed
    losses = workspace / "losses.py"
    losses_uri = open_file(client, losses)
    await diagnostics_for(client, losses_uri)
    line = marker(losses, "compile")[0]
    column = losses.read_text().splitlines()[line].index("my_loss") + 2
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=losses_uri),
        position=types.Position(line=line, character=column)))
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert "`my_loss` runs in graph mode" in hover.contents.value
    assert "compile(loss=...)" in hover.contents.value

    nothing = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        position=types.Position(line=0, character=0)))
    assert nothing is None


async def test_hovers_stay_while_typing_and_after_reopening(client: LanguageClient,
                                                            workspace: Path) -> None:
    """A result whose graph facts did not change leaves them out (the server keeps the last
    ones): hovers still show them after keystrokes that change none, after a change that
    adds one, and after the document is closed and opened again."""
    await start(client, workspace)
    path = workspace / "seed_layernorm.py"
    text = path.read_text(encoding="utf-8")
    uri = open_file(client, path)
    await diagnostics_for(client, uri)
    line, column = marker(path, "step")

    async def hover_text(at_line: int = line, at_column: int = column + 5) -> str:
        hover = await client.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=at_line, character=at_column)))
        return hover.contents.value if hover is not None and isinstance(
            hover.contents, types.MarkupContent) else ""

    for version in range(2, 6):  # a comment typed at the end: no fact changes
        text += "#"
        replace_all(client, uri, text, version)
        assert "runs in graph mode" in await hover_text()
    added = text + "\n\n@tf.function\ndef added(x):\n    return x\n"
    replace_all(client, uri, added, 6)
    assert "`added` runs in graph mode" in await hover_text(len(added.splitlines()) - 2, 5)
    assert "runs in graph mode" in await hover_text()
    client.text_document_did_close(types.DidCloseTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=uri)))
    open_file(client, path, added, version=7)
    assert "runs in graph mode" in await hover_text()


async def code_actions(client: LanguageClient, uri: str,
                       diagnostic: types.Diagnostic) -> list[types.CodeAction | types.Command]:
    """The actions offered for a diagnostic. (lsprotocol's client-side converter turns a
    CodeAction that carries a `command` into a `Command`; the JSON sent is a CodeAction.)"""
    result = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=diagnostic.range,
        context=types.CodeActionContext(diagnostics=[diagnostic])))
    assert result is not None
    return list(result)


def edits_of(action: types.CodeAction | types.Command, uri: str) -> list[types.TextEdit]:
    assert isinstance(action, types.CodeAction) and action.edit is not None and action.edit.document_changes is not None
    found: list[types.TextEdit] = []
    for change in action.edit.document_changes:
        assert isinstance(change, types.TextDocumentEdit)
        assert change.text_document.uri == uri
        found.extend(e for e in change.edits if isinstance(e, types.TextEdit))
    return found


async def test_quick_fix_applied(client: LanguageClient, workspace: Path) -> None:
    await start(client, workspace)
    path = workspace / "seed_layernorm.py"
    text = path.read_text(encoding="utf-8")
    uri = open_file(client, path)
    found = await diagnostics_for(client, uri)
    diagnostic = next(d for d in found if d.code == "TFI001")

    actions = await code_actions(client, uri, diagnostic)
    titles = [a.title for a in actions]
    fix = next(a for a in actions if isinstance(a, types.CodeAction) and a.is_preferred)
    assert fix.kind == types.CodeActionKind.QuickFix and "inner function" in fix.title
    assert "Add `# noqa: TFI001`" in titles and "Explain rule TFI001" in titles

    fixed = apply_edits(text, edits_of(fix, uri))
    assert "    @recompute_grad  # @decorator\n    def call" not in fixed
    assert "        @recompute_grad\n        def forward(inputs):\n" in fixed
    assert "        return forward(inputs)" in fixed
    compile(fixed, "fixed.py", "exec")  # still valid Python

    # the editor applies it; the server re-analyses the new text: TFI001 is gone
    replace_all(client, uri, fixed, 2)
    after = await diagnostics_for(client, uri, check=lambda d: not any(x.code == "TFI001" for x in d))
    assert not any(d.code == "TFI001" for d in after)


async def test_noqa_action(client: LanguageClient, workspace: Path) -> None:
    await start(client, workspace)
    path = workspace / "seed_layernorm.py"
    text = path.read_text(encoding="utf-8")
    uri = open_file(client, path)
    diagnostic = next(d for d in await diagnostics_for(client, uri) if d.code == "TFI001")
    noqa = next(a for a in await code_actions(client, uri, diagnostic)
                if a.title == "Add `# noqa: TFI001`")
    silenced = apply_edits(text, edits_of(noqa, uri))
    line = silenced.splitlines()[diagnostic.range.start.line]
    assert line == "    @recompute_grad  # @decorator  # noqa: TFI001"
    replace_all(client, uri, silenced, 2)
    after = await diagnostics_for(client, uri, check=lambda d: not any(x.code == "TFI001" for x in d))
    assert not any(d.code == "TFI001" for d in after)

    # an existing noqa comment is extended, not duplicated
    merged_text = text.replace("@recompute_grad  # @decorator", "@recompute_grad  # noqa: TFI999")
    replace_all(client, uri, merged_text, 3)
    diagnostic = next(d for d in await diagnostics_for(
        client, uri, check=lambda d: any(x.code == "TFI001" for x in d)) if d.code == "TFI001")
    noqa = next(a for a in await code_actions(client, uri, diagnostic)
                if a.title.startswith("Add `# noqa"))
    merged = apply_edits(merged_text, edits_of(noqa, uri))
    assert "@recompute_grad  # noqa: TFI999, TFI001\n" in merged


async def test_show_rule_and_explain_rule_action(client: LanguageClient, workspace: Path) -> None:
    await start(client, workspace)
    result = plain(await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="tfInsight.showRule", arguments=["TFI001"])))
    markdown = result["markdown"]
    assert markdown.startswith("### TFI001 custom-gradient-keyword-args (error)")
    for section in ("What it does", "Why is this bad?", "Example", "Use instead", "References"):
        assert f"#### {section}" in markdown

    with pytest.raises(JsonRpcException, match="unknown rule"):
        await client.workspace_execute_command_async(types.ExecuteCommandParams(
            command="tfInsight.showRule", arguments=["TFI999"]))


async def test_explain_error_on_real_traceback(client: LanguageClient, workspace: Path) -> None:
    await start(client, DATA / "session")
    # captured from a real TF 2.21 / tf-keras run of data/session/train_layernorm.py
    text = (DATA / "tracebacks" / "custom_gradient_kwargs.txt").read_text(encoding="utf-8")
    # path-neutral (`/home/user/project/session/...`): explain maps frames onto the workspace
    result = plain(await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="tfInsight.explainError", arguments=[{"text": text}])))
    explanation = result["explanation"]
    assert explanation["rule"] == "TFI001"
    assert "custom_gradient" in result["markdown"]
    assert explanation["exception"]["type"] == "ValueError"
    # joined with the workspace's code: the static finding on the decorated call
    assert any(f["code"] == "TFI001" and f["path"].endswith("train_layernorm.py")
               for f in explanation["findings"]), explanation["findings"]

    with pytest.raises(JsonRpcException, match="text"):
        await client.workspace_execute_command_async(types.ExecuteCommandParams(
            command="tfInsight.explainError", arguments=[{"nope": 1}]))
