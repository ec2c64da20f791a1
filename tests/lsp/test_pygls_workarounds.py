"""The installed pygls is still the one `tf_insight_server.pygls_workarounds` was written for.

Each test names what a workaround relies on in pygls and fails when an upgrade takes it away:
then see whether the workaround is still needed, adapt it, and widen `PYGLS_VERSIONS`. (What the
workarounds do is tested end to end, through a real client: test_lifecycle.py, test_robustness.py.)
"""

from __future__ import annotations

import concurrent.futures
import importlib.metadata
import inspect

from lsprotocol import types
from packaging.specifiers import SpecifierSet
from pygls.lsp.server import LanguageServer
from pygls.protocol import JsonRPCProtocol, LanguageServerProtocol
from pygls.workspace import Workspace

from tf_insight_server.pygls_workarounds import PYGLS_VERSIONS, PendingRequests, Protocol


def test_pygls_is_a_version_the_workarounds_were_checked_against() -> None:
    installed = importlib.metadata.version("pygls")
    assert installed in SpecifierSet(PYGLS_VERSIONS), (
        f"pygls {installed}: check each workaround in tf_insight_server/pygls_workarounds.py "
        f"against it, then widen PYGLS_VERSIONS ({PYGLS_VERSIONS})")


def test_pending_requests_are_the_dict_pygls_files_handlers_in() -> None:
    """1. and 3.: pygls keeps every pending request's future in `_request_futures` (filed when
    a handler starts or a request is sent, removed on a response or a cancellation, cancelled
    one by one at shutdown), and the current request's id is `msg_id`."""
    assert type(vars(LanguageServer("probe", "0").protocol)["_request_futures"]) is dict
    for method in (JsonRPCProtocol._execute_handler, JsonRPCProtocol.send_request,
                   JsonRPCProtocol._handle_response, JsonRPCProtocol._handle_cancel_notification):
        assert "self._request_futures[" in inspect.getsource(method) or \
            "self._request_futures.pop(" in inspect.getsource(method), method.__name__
    assert "self._request_futures.items()" in inspect.getsource(LanguageServerProtocol.lsp_shutdown)
    assert isinstance(inspect.getattr_static(JsonRPCProtocol, "msg_id"), property)
    assert type(vars(LanguageServer("ours", "0", protocol_cls=Protocol).protocol)[
        "_request_futures"]) is PendingRequests


def test_pending_requests_forget_done_futures_and_survive_cancellation() -> None:
    pending = PendingRequests()
    done, cancelled, kept = (concurrent.futures.Future[None]() for _ in range(3))
    for msg_id, future in ((1, done), (2, cancelled), (3, kept)):
        pending[msg_id] = future
    done.set_result(None)
    assert set(pending) == {2, 3}
    for msg_id, future in pending.items():  # as pygls's shutdown: cancelling removes it
        if msg_id == 2:
            future.cancel()
    assert set(pending) == {3}
    again = concurrent.futures.Future[None]()
    pending[3] = again  # the same id again: the first future's end must not remove it
    kept.set_result(None)
    assert pending == {3: again}


def test_responses_are_sent_by_send_response() -> None:
    """2.: an error answer to a request goes out through `_send_response(msg_id, error=...)`,
    and `structure_message` is where a message's parameters are checked."""
    parameters = inspect.signature(JsonRPCProtocol._send_response).parameters
    assert list(parameters) == ["self", "msg_id", "result", "error"]
    assert "structure_message" in vars(JsonRPCProtocol)


def test_did_change_handlers_are_builtins_we_replace() -> None:
    """4.: pygls applies text changes in its built-in handlers, generators that hand over to
    the server's own handler; a whole-document change sets a document's text."""
    for name, method in (("lsp_text_document__did_change", types.TEXT_DOCUMENT_DID_CHANGE),
                         ("lsp_notebook_document__did_change",
                          types.NOTEBOOK_DOCUMENT_DID_CHANGE)):
        for protocol in (LanguageServerProtocol, Protocol):
            handler = getattr(protocol, name)
            assert handler.method_name == method and inspect.isgeneratorfunction(handler)
    workspace = Workspace(None)
    workspace.put_text_document(types.TextDocumentItem(
        uri="file:///a.py", language_id="python", version=1, text="a\u2028b\n"))
    workspace.update_text_document(types.VersionedTextDocumentIdentifier(
        uri="file:///a.py", version=2), types.TextDocumentContentChangeWholeDocument(text="c\n"))
    document = workspace.text_documents["file:///a.py"]
    assert (document.source, document.version) == ("c\n", 2)
