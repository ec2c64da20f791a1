"""Settings: initializationOptions, workspace/didChangeConfiguration, validation messages,
pyproject.toml honoured and overridden by the editor."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.lsp.conftest import diagnostics_for, open_file, server_info, start, wait_until


def codes(found: list[types.Diagnostic]) -> set[str]:
    return {str(d.code) for d in found}


async def test_bad_settings_are_reported_and_defaults_used(client: LanguageClient,
                                                           workspace: Path) -> None:
    await start(client, workspace, options={"tfInsight": {
        "keras": "4", "select": "TFI001", "ignore": [1, 2],
        "session": {"maxHits": -3, "timeoutSeconds": "soon", "stopAfter": "soon"},
        "interpreter": "/no/such/python", "trace": {"server": "loud"}}})
    uri = open_file(client, workspace / "seed_layernorm.py")
    found = await diagnostics_for(client, uri)
    assert "TFI001" in codes(found), "the server keeps working with the defaults"

    warnings = [m.message for m in client.messages if m.type == types.MessageType.Warning]
    for setting in ("tfInsight.keras", "tfInsight.ignore", "tfInsight.session.maxHits",
                    "tfInsight.session.timeoutSeconds", "tfInsight.session.stopAfter",
                    "tfInsight.interpreter",
                    "tfInsight.trace.server"):
        assert any(m.startswith(setting) for m in warnings), (setting, warnings)
    assert any("'4'" in m and '"auto"' in m for m in warnings)

    info = (await server_info(client))["settings"]
    assert info["keras"] == "auto" and info["select"] == ["TFI001"]  # "TFI001" string accepted
    assert info["session"] == {"maxHits": 3, "timeoutSeconds": 300.0, "stopAfter": ""}
    assert info["interpreter"] is None and info["trace"] == "off"


async def test_change_configuration(client: LanguageClient, workspace: Path) -> None:
    await start(client, workspace, options={"tfInsight": {"keras": "auto"}})
    uri = open_file(client, workspace / "seed_layernorm.py")
    assert "TFI001" in codes(await diagnostics_for(client, uri))

    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"tfInsight": {"ignore": ["TFI001"], "session": {"maxHits": 7}}}))
    found = await diagnostics_for(client, uri, check=lambda d: "TFI001" not in codes(d))
    assert "TFI001" not in codes(found)
    assert (await server_info(client))["settings"]["session"]["maxHits"] == 7

    # the object without the `tfInsight` wrapper is accepted too
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"ignore": [], "select": ["TFI001"]}))
    found = await diagnostics_for(client, uri, check=lambda d: codes(d) == {"TFI001"})
    assert codes(found) == {"TFI001"}

    # settings that are not ours leave everything as it is
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"python": {"analysis": {}}}))
    assert (await server_info(client))["settings"]["select"] == ["TFI001"]

    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"tfInsight": {"keras": 3}}))
    assert (await server_info(client))["settings"]["keras"] == "3"  # 3 → "3"


async def test_pyproject_is_honoured_and_editor_overrides_it(client: LanguageClient,
                                                             workspace: Path) -> None:
    (workspace / "pyproject.toml").write_text(
        '[tool.tf-insight]\nignore = ["TFI001"]\n', encoding="utf-8")
    await start(client, workspace)
    uri = open_file(client, workspace / "seed_layernorm.py")
    found = await diagnostics_for(client, uri, check=lambda d: True)
    assert "TFI001" not in codes(found)

    # an editor setting replaces the pyproject value of the same key
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"tfInsight": {"ignore": ["TFI019"]}}))
    found = await diagnostics_for(client, uri, check=lambda d: "TFI001" in codes(d))
    assert "TFI001" in codes(found)


async def test_bad_pyproject_is_reported(client: LanguageClient, workspace: Path) -> None:
    (workspace / "pyproject.toml").write_text(
        '[tool.tf-insight]\nkeras = "5"\n', encoding="utf-8")
    await start(client, workspace)
    uri = open_file(client, workspace / "seed_layernorm.py")
    found = await diagnostics_for(client, uri)
    assert "TFI001" in codes(found)
    message = await wait_until(client, lambda: next(
        (m.message for m in client.messages if "pyproject.toml" in m.message), None),
        method=types.WINDOW_SHOW_MESSAGE)
    assert "keras" in message and "using the defaults" in message
