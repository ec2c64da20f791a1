"""Diagnostics pushed for a seed fixture, kept fresh while typing, and pulled."""

from __future__ import annotations

import asyncio
from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.lsp.conftest import (
    diagnostics_for,
    marker,
    open_file,
    replace_all,
    server_info,
    start,
    wait_until,
)


async def test_seed_fixture_diagnostics(client: LanguageClient, workspace: Path) -> None:
    await start(client, workspace)
    path = workspace / "seed_layernorm.py"
    uri = open_file(client, path)
    found = await diagnostics_for(client, uri)

    tfi001 = [d for d in found if d.code == "TFI001"]
    assert len(tfi001) == 1, found
    diagnostic = tfi001[0]
    line, column = marker(path, "decorator")
    assert diagnostic.range.start == types.Position(line=line, character=column + 1)
    assert diagnostic.source == "tf-insight"
    assert diagnostic.severity == types.DiagnosticSeverity.Error
    assert diagnostic.code_description is not None
    assert diagnostic.code_description.href.endswith("#tfi001")
    assert "training=" in diagnostic.message and "LayerNormalization.call" in diagnostic.message
    assert isinstance(diagnostic.data["finding"], int), "it names its finding (and so its fix)"

    if any(rule == "TFI006" for rule in (await server_info(client))["rules"]):
        prints = [d for d in found if d.code == "TFI006"]
        assert prints and prints[0].range.start.line == marker(path, "print")[0]

    # the server process never imports TensorFlow
    info = await server_info(client)
    assert info["tensorflowImported"] is False


async def test_clean_file_and_cross_module(client: LanguageClient, workspace: Path) -> None:
    await start(client, workspace)
    clean = open_file(client, workspace / "clean.py")
    assert await diagnostics_for(client, clean, check=lambda d: True) == []

    uses = workspace / "pkg" / "uses.py"
    uri = open_file(client, uses)
    found = await diagnostics_for(client, uri)
    # the decorator is defined in another module and built on tf.recompute_grad (jedi)
    tfi001 = [d for d in found if d.code == "TFI001"]
    assert len(tfi001) == 1 and tfi001[0].range.start.line == marker(uses, "cross-decorator")[0]
    # related information points into the other file, where the decorator is defined
    helpers = workspace / "pkg" / "helpers.py"
    (related,) = tfi001[0].related_information or []
    assert related.location.uri == helpers.as_uri()
    assert related.location.range.start.line == marker(helpers, "decorator-def")[0]
    assert "recompute_grad" in related.message


def _published_versions(client: LanguageClient) -> list[int | None]:
    """The version of every publishDiagnostics from now on, in order (still handled as usual)."""
    versions: list[int | None] = []
    features = client.protocol.fm.features
    handler = features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS]

    def record(params: types.PublishDiagnosticsParams) -> None:
        versions.append(params.version)
        handler(params)

    features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = record
    return versions


async def test_fast_typing_publishes_latest_version_only(client: LanguageClient,
                                                         workspace: Path) -> None:
    await start(client, workspace)
    path = workspace / "seed_layernorm.py"
    original = path.read_text(encoding="utf-8")
    uri = open_file(client, path)
    await diagnostics_for(client, uri)

    versions = _published_versions(client)

    # 30 edits without waiting; the last one removes the hazard
    fixed = original.replace("    @recompute_grad  # @decorator\n", "")
    for version in range(2, 32):
        replace_all(client, uri, original + f"\n# edit {version}\n", version)
    replace_all(client, uri, fixed, 32)
    found = await diagnostics_for(
        client, uri, check=lambda d: not any(x.code == "TFI001" for x in d) and versions[-1] == 32)
    assert not any(d.code == "TFI001" for d in found)
    assert versions == sorted(versions), "versions published out of order"
    assert len(versions) < 31, "every intermediate version was analysed and published"


async def test_typing_faster_than_the_analysis_still_shows_diagnostics_while_typing(
        client: LanguageClient, workspace: Path) -> None:
    """Each analysis of a long file takes longer than the time between two keys: a finished
    analysis the user typed past is published (the edits moved no line), not held back until
    the typing stops; the last publish is the last version's."""
    await start(client, workspace)
    path = workspace / "seed_layernorm.py"
    block = "".join(f"\n\n@tf.function\ndef step_{i}(x):\n    return x * {i}\n" for i in range(400))
    text = path.read_text(encoding="utf-8") + block + "\n# typing: \n"
    uri = open_file(client, path)
    replace_all(client, uri, text, 2)
    await diagnostics_for(client, uri)
    published = _published_versions(client)
    for version in range(3, 103):  # a key every 5 ms, on the last line
        text += "x"
        replace_all(client, uri, text, version)
        await asyncio.sleep(0.005)
    while_typing = list(published)
    await wait_until(client, lambda: published and published[-1] == 102)
    assert while_typing, "nothing was published while the user typed"
    assert published == sorted(published)


async def test_syntax_error_then_recovery(client: LanguageClient, workspace: Path) -> None:
    await start(client, workspace)
    path = workspace / "seed_layernorm.py"
    text = path.read_text(encoding="utf-8")
    uri = open_file(client, path, text="import tensorflow as tf\ndef broken(:\n")
    found = await diagnostics_for(client, uri)
    assert [d.code for d in found] == ["TFI000"]
    replace_all(client, uri, text, 2)
    found = await diagnostics_for(client, uri, check=lambda d: any(x.code == "TFI001" for x in d))
    assert found


async def test_pull_diagnostics(client: LanguageClient, workspace: Path) -> None:
    await start(client, workspace, pull=True)
    path = workspace / "seed_layernorm.py"
    uri = open_file(client, path)
    report = await client.text_document_diagnostic_async(types.DocumentDiagnosticParams(
        text_document=types.TextDocumentIdentifier(uri=uri)))
    assert report.kind == "full"
    assert report.result_id == f"{uri}@1"
    assert any(item.code == "TFI001" for item in report.items)
    again = await client.text_document_diagnostic_async(types.DocumentDiagnosticParams(
        text_document=types.TextDocumentIdentifier(uri=uri), previous_result_id=report.result_id))
    assert again.kind == "unchanged"
    replace_all(client, uri, path.read_text(encoding="utf-8").replace("@recompute_grad  #", "#"), 2)
    changed = await client.text_document_diagnostic_async(types.DocumentDiagnosticParams(
        text_document=types.TextDocumentIdentifier(uri=uri), previous_result_id=report.result_id))
    assert changed.kind == "full" and changed.result_id == f"{uri}@2"
    assert not any(item.code == "TFI001" for item in changed.items)
    assert uri not in client.diagnostics, "a pull client must not also get pushed diagnostics"


async def test_saving_a_neighbour_updates_open_documents(client: LanguageClient,
                                                         workspace: Path) -> None:
    await start(client, workspace)
    uses = open_file(client, workspace / "pkg" / "uses.py")
    assert any(d.code == "TFI001" for d in await diagnostics_for(client, uses))

    # the decorator in the other module stops using tf.recompute_grad; the editor saves it
    helpers = workspace / "pkg" / "helpers.py"
    text = helpers.read_text().replace("return tf.recompute_grad(call)", "return call")
    helpers_uri = open_file(client, helpers)
    replace_all(client, helpers_uri, text, 2)
    helpers.write_text(text)
    client.text_document_did_save(types.DidSaveTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=helpers_uri)))
    found = await diagnostics_for(client, uses, check=lambda d: not any(
        x.code == "TFI001" for x in d))
    assert not any(d.code == "TFI001" for d in found)


async def test_saving_a_file_that_tells_the_projects_keras_updates_open_documents(
        client: LanguageClient, workspace: Path) -> None:
    """What one file shows of the project (here: it uses what Keras 3 removed, so the
    project's `tf.keras` code is Keras 2) holds for every open document, and is read again
    when a file is saved: a raw `tf.Variable` on a layer is a hazard on Keras 3 only."""
    layer = workspace / "scale.py"
    layer.write_text(SCALE_LAYER)
    await start(client, workspace)
    uri = open_file(client, layer)
    assert any(d.code == "TFI009" for d in await diagnostics_for(client, uri))

    train = workspace / "train.py"
    text = "from scale import Scale\n\n\ndef train(model, batches):\n" \
           "    model.fit_generator(batches, epochs=3)\n"
    train.write_text(text)
    train_uri = open_file(client, train, text=text)
    client.text_document_did_save(types.DidSaveTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=train_uri)))
    found = await diagnostics_for(client, uri, check=lambda d: not any(
        x.code == "TFI009" for x in d))
    assert not any(d.code == "TFI009" for d in found)


SCALE_LAYER = """\
import tensorflow as tf


class Scale(tf.keras.layers.Layer):
    def __init__(self):
        super().__init__()
        self.factor = tf.Variable(2.0)

    def call(self, inputs):
        return inputs * self.factor
"""


async def test_escaped_uri(client: LanguageClient, workspace: Path) -> None:
    """A path with a space and a non-ASCII letter arrives percent-encoded in the URI."""
    folder = workspace / "my models"
    folder.mkdir()
    path = folder / "séed.py"
    path.write_text((workspace / "seed_layernorm.py").read_text(), encoding="utf-8")
    await start(client, workspace)
    uri = open_file(client, path)
    assert "%20" in uri
    found = await diagnostics_for(client, uri)
    assert any(d.code == "TFI001" for d in found)
    replace_all(client, uri, path.read_text(encoding="utf-8").replace("@recompute_grad  #", "#"), 2)
    found = await diagnostics_for(client, uri, check=lambda d: not any(
        x.code == "TFI001" for x in d))
    assert not any(d.code == "TFI001" for d in found)
