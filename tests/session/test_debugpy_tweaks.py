"""The changes to debugpy's behaviour keep what they change the same, only faster."""

from __future__ import annotations

import inspect
import os
import sys
from typing import Any

import pytest

from tf_insight.session.debuggee import debugpy_tweaks

os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")  # before pydevd is imported
pytest.importorskip("debugpy.server.api")  # puts pydevd's own modules on the path
from _pydevd_bundle import pydevd_api
from debugpy.common import log


@pytest.fixture
def code_lines(monkeypatch: pytest.MonkeyPatch) -> Any:
    """pydevd's own line finder; the tweak replaces it for the test only."""
    original = pydevd_api._get_code_lines
    monkeypatch.setattr(pydevd_api, "_get_code_lines", original)
    return original


def test_breakpoint_lines_come_from_bytecode_once_per_file(
    code_lines: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = inspect.getfile(inspect)  # a large standard module with a bytecode cache
    expected = sorted(code_lines(path))
    debugpy_tweaks.read_each_file_once()
    loads: list[str] = []
    get_code = debugpy_tweaks.importlib.machinery.SourceFileLoader.get_code

    def counting_get_code(loader: Any, name: str) -> Any:
        loads.append(loader.path)
        return get_code(loader, name)

    monkeypatch.setattr(
        debugpy_tweaks.importlib.machinery.SourceFileLoader, "get_code", counting_get_code
    )
    assert sorted(pydevd_api._get_code_lines(path)) == expected
    assert sorted(pydevd_api._get_code_lines(path)) == expected
    assert loads == [path]


def test_a_file_that_cannot_be_read_is_left_to_pydevd(code_lines: Any) -> None:
    debugpy_tweaks.read_each_file_once()
    with pytest.raises(OSError):
        list(pydevd_api._get_code_lines("/no/such/file.py"))


def test_the_environment_is_described_only_when_a_log_takes_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(log, "describe_environment", log.describe_environment)
    described: list[str] = []
    monkeypatch.setattr(
        log, "get_environment_description", lambda header: described.append(header) or header
    )
    debugpy_tweaks.skip_unlogged_environment_description()
    monkeypatch.setattr(log, "_levels", frozenset({"warning", "error"}))
    log.describe_environment("unlogged")
    monkeypatch.setattr(log, "_levels", frozenset({"info", "warning", "error"}))
    log.describe_environment("logged")
    assert described == ["logged"]


def test_without_debugpy_internals_nothing_changes(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("pydevd", "_pydevd_bundle.pydevd_api"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    debugpy_tweaks.read_each_file_once()
    debugpy_tweaks.exit_without_waiting()
    debugpy_tweaks.stop_debugging()


def test_without_pydevd_the_debuggee_refuses_to_connect(monkeypatch: pytest.MonkeyPatch) -> None:
    """Access changes fail closed: no pydevd to route through our socket, no session."""
    monkeypatch.delitem(sys.modules, "pydevd", raising=False)
    with pytest.raises(debugpy_tweaks.Unsupported):
        debugpy_tweaks.connect_through(0)
