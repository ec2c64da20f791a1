"""Where pygls falls short and its public API offers no way around it: the one module that
uses pygls's private names (`tests/test_architecture.py` holds every other module to that).

Written for pygls 2.1.1 (`PYGLS_VERSIONS`); `tests/lsp/test_pygls_workarounds.py` fails when the
installed pygls is outside that range or no longer has what a workaround relies on.

1. Pending requests (`_request_futures`): pygls files the future of every notification's
   handler there under a fresh id and never removes it (2 MB more per 1,000 edits, for good);
   and its `shutdown` cancels the pending ones while iterating over the dict, whose entries the
   cancellations' callbacks remove ("dictionary changed size during iteration": `shutdown` was
   answered with an error). `PendingRequests` forgets a future once it is done, and is iterated
   over a copy.
2. A request whose parameters do not fit its type (a negative position...) is answered with
   "invalid params" (`_send_response`); pygls only logs it, and the client waits forever.
3. `$/cancelRequest`: pygls runs a `workspace/executeCommand` handler as a nested task under
   another id, so cancelling the request does not cancel the handler; `Protocol.on_cancel`
   watches the request's own future (`_request_futures`, `msg_id`).
4. Text sync (`textsync`: pygls's is slow and splits lines unlike LSP). No private name: the
   built-in `didChange` handlers are overridden (`lsp_method`), and each document's new text is
   given to pygls's workspace as a whole-document change.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from typing import Any
from urllib.parse import unquote

import attrs
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.protocol import LanguageServerProtocol, lsp_method

from tf_insight_server import textsync
from tf_insight_server.conversions import encoding_name

PYGLS_VERSIONS = ">=2.1.1,<2.2"  # what the workarounds were checked against


class PendingRequests(dict[Any, Any]):
    """pygls's pending requests by id, each forgotten once done (1. above)."""

    def __setitem__(self, msg_id: Any, future: Any) -> None:
        super().__setitem__(msg_id, future)
        future.add_done_callback(lambda done: self._forget(msg_id, done))

    def _forget(self, msg_id: Any, future: Any) -> None:
        if self.get(msg_id) is future:  # (not a later request under the same id)
            self.pop(msg_id, None)

    def items(self) -> Any:
        """A copy: cancelling a future removes it (pygls's `shutdown` iterates over this)."""
        return list(super().items())


class Protocol(LanguageServerProtocol):
    """pygls's protocol with the workarounds above."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._request_futures = PendingRequests()

    def structure_message(self, data: dict[str, Any]) -> Any:
        """Answers a request whose parameters do not fit its type (2. above)."""
        try:
            return super().structure_message(data)
        except JsonRpcException as error:
            if "method" in data and isinstance(data.get("id"), int | str):
                self._send_response(data["id"], error=error.to_response_error())
            raise

    def on_cancel(self, callback: Callable[[], None]) -> None:
        """Call `callback` when the client cancels the request being handled (3. above)."""
        msg_id = self.msg_id
        future = self._request_futures.get(msg_id) if msg_id is not None else None
        if future is not None:
            future.add_done_callback(lambda f: callback() if f.cancelled() else None)

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(
            self, params: types.DidChangeTextDocumentParams) -> Generator[Any, Any, None]:
        """pygls's, with `textsync` (4. above)."""
        self._apply_changes(params.text_document, params.content_changes)
        if (handler := self.fm.features.get(types.TEXT_DOCUMENT_DID_CHANGE)) is not None:
            yield handler, (params,), None

    @lsp_method(types.NOTEBOOK_DOCUMENT_DID_CHANGE)
    def lsp_notebook_document__did_change(
            self, params: types.DidChangeNotebookDocumentParams) -> Generator[Any, Any, None]:
        """pygls's, with `textsync` for the cells (4. above)."""
        cells = params.change.cells
        if cells is not None and cells.text_content:
            # as pygls: the notebook and its structure first, then the text of its cells
            self.workspace.update_notebook_document(attrs.evolve(params, change=attrs.evolve(
                params.change, cells=attrs.evolve(cells, text_content=None))))
            for content in cells.text_content:
                self._apply_changes(content.document, content.changes)
        else:
            self.workspace.update_notebook_document(params)
        if (handler := self.fm.features.get(types.NOTEBOOK_DOCUMENT_DID_CHANGE)) is not None:
            yield handler, (params,), None

    def _apply_changes(self, document: types.VersionedTextDocumentIdentifier,
                       changes: Sequence[types.TextDocumentContentChangeEvent]) -> None:
        if not changes:
            return  # (pygls leaves the version as it was then)
        # a document that is not open: KeyError, as in pygls
        text = self.workspace.text_documents[unquote(document.uri)].source
        text = textsync.apply_changes(text, changes,
                                      encoding_name(self.workspace.position_encoding))
        self.workspace.update_text_document(
            document, types.TextDocumentContentChangeWholeDocument(text=text))
