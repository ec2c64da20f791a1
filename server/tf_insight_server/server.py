"""The wiring: a pygls `LanguageServer` whose handlers are thin calls into the other modules.

Threads: the event loop owns the workspace and every message sent; analysis runs on one worker
thread (`DiagnosticsEngine`), explain and workspace checks on the command pool, sessions on
their own threads. Anything a thread wants to send goes through `TfInsightServer.post`.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import unquote

from lsprotocol import types
from pygls.exceptions import FeatureRequestError, JsonRpcInvalidParams
from pygls.lsp.server import LanguageServer

from tf_insight import __version__
from tf_insight.check import rules, split_lines
from tf_insight.debug import editor_adapter, launch_arguments
from tf_insight_server import code_actions as actions
from tf_insight_server import commands, worker
from tf_insight_server import conversions as conv
from tf_insight_server import settings as settings_module
from tf_insight_server.diagnostics import Analysed, DiagnosticsEngine
from tf_insight_server.documents import CLOSED, Snapshot
from tf_insight_server.hover import hover
from tf_insight_server.projects import Projects
from tf_insight_server.pygls_workarounds import Protocol
from tf_insight_server.sessions import Sessions, parse_request, start_for_client

log = logging.getLogger(__name__)
T = TypeVar("T")

SESSION_ANNOTATIONS = "tfInsight/sessionAnnotations"
SERVER_INFO = "tfInsight/serverInfo"
PYTHON_LANGUAGES = {"python", "py"}


class TfInsightServer(LanguageServer):
    protocol: Protocol

    def __init__(self) -> None:
        super().__init__(
            "tf-insight",
            __version__,
            protocol_cls=Protocol,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            notebook_document_sync=types.NotebookDocumentSyncOptions(
                notebook_selector=[types.NotebookDocumentFilterWithCells(
                    cells=[types.NotebookCellLanguage(language="python")], notebook="*")],
                save=True,
            ),
        )
        self.loop: asyncio.AbstractEventLoop | None = None
        self.encoding = conv.UTF16
        self.settings = settings_module.Settings()
        self.projects = Projects(warn=self.warn)
        self.engine = DiagnosticsEngine(
            config=self.analysis_config, snapshot=self.snapshot, version=self.document_version,
            publish=self.publish, log_message=self.log_message, warn=self.warn,
            encoding=lambda: self.encoding)
        self.sessions = Sessions()
        self.pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="tfi-command")
        self.notebooks: set[str] = set()
        self.documents: set[str] = set()  # open Python text documents we analyse
        self.workspace_published: set[str] = set()  # URIs published by checkWorkspace
        self.shut_down = False  # `shutdown` came before `exit`
        self._last_inlay_refresh = 0.0

    # ---- plumbing -------------------------------------------------------------------------

    def post(self, fn: Callable[..., Any], *args: Any) -> None:
        """Run `fn(*args)` on the event loop (from any thread)."""
        loop = self.loop
        if loop is None or loop.is_closed():
            return
        if _on_loop(loop):
            fn(*args)
        else:
            loop.call_soon_threadsafe(_guard, fn, *args)

    def warn(self, message: str) -> None:
        self.post(self.window_show_message,
                  types.ShowMessageParams(type=types.MessageType.Warning, message=message))

    def log_message(self, kind: types.MessageType, message: str) -> None:
        self.post(self.window_log_message, types.LogMessageParams(type=kind, message=message))

    def publish(self, uri: str, diagnostics: list[types.Diagnostic], version: int | None) -> None:
        self.post(self.text_document_publish_diagnostics, types.PublishDiagnosticsParams(
            uri=uri, diagnostics=diagnostics, version=version))

    def report_server_error(self, error: Exception, source: Any) -> None:
        """A message the server could not handle (malformed, or about a document that was
        never opened): logged, never a dialog in the editor; the server carries on."""
        if source is FeatureRequestError:
            return  # a request's error is in its response already
        log.warning("could not handle a message (%s): %s", getattr(source, "__name__", source),
                    error)
        self.log_message(types.MessageType.Warning,
                         f"tf-insight: could not handle a message: {error}"[:500])

    def framing_problem(self, problem: str) -> None:
        """Bytes on stdin that are not an LSP frame (the reader skipped them)."""
        log.warning("input: %s", problem)
        self.log_message(types.MessageType.Warning, f"tf-insight: bad input: {problem}"[:500])

    def notify(self, method: str, params: Any) -> None:
        self.post(self.protocol.notify, method, params)

    # ---- documents ------------------------------------------------------------------------

    def key_for(self, uri: str) -> str:
        """The analysed unit a URI belongs to: itself, or the notebook holding the cell."""
        notebook = self.workspace.get_notebook_document(cell_uri=uri)
        return notebook.uri if notebook is not None else uri

    def snapshot(self, key: str) -> Snapshot | None:
        try:
            if key in self.notebooks:
                return conv.notebook_snapshot(self.workspace, key)
            if key in self.documents:
                return conv.text_snapshot(self.workspace, key)
        except Exception as error:  # a document pygls could not read (deleted, unreadable)
            self.log_message(types.MessageType.Warning, f"tf-insight: cannot read {key}: {error}")
        return None

    def document_version(self, key: str) -> object:
        """Cheap and thread-safe enough (dict reads): the current version, or a sentinel."""
        try:
            if key in self.notebooks:
                notebook = self.workspace.notebook_documents.get(unquote(key))
                return notebook.version if notebook is not None else CLOSED
            document = self.workspace.text_documents.get(unquote(key))
            return document.version if document is not None else CLOSED
        except Exception:
            return CLOSED

    def cell_version(self, uri: str) -> int | None:
        document = self.workspace.text_documents.get(unquote(uri))
        return document.version if document is not None else None

    def open_keys(self) -> list[str]:
        return [*self.documents, *self.notebooks]

    def analysis_config(self) -> tuple[settings_module.Settings, tuple[str, ...]]:
        """The settings and workspace folders the analysis worker runs with."""
        return self.settings, tuple(str(folder) for folder in self.projects.folders)

    def root_for_commands(self) -> Path | None:
        folders = self.projects.folders
        return folders[0] if folders else None

    # ---- settings -------------------------------------------------------------------------

    def apply_settings(self, raw: Any, initial: bool = False) -> None:
        settings, problems = settings_module.parse(raw)
        for problem in problems:
            self.warn(problem)
        changed = settings != self.settings
        self.settings = settings
        if changed or initial:
            self.projects.set_settings(settings)
        if changed and not initial:
            self.engine.invalidate_all(self.open_keys())
            self.refresh_pull_diagnostics()

    def refresh_pull_diagnostics(self) -> None:
        if self.engine.push:
            return
        capabilities = self.client_capabilities.workspace
        if capabilities is not None and capabilities.diagnostics is not None and \
                capabilities.diagnostics.refresh_support:
            self.workspace_diagnostic_refresh(None)

    def refresh_inlay_hints(self, force: bool = False) -> None:
        capabilities = self.client_capabilities.workspace
        if capabilities is None or capabilities.inlay_hint is None or \
                not capabilities.inlay_hint.refresh_support:
            return
        now = time.monotonic()
        if force or now - self._last_inlay_refresh > 0.5:
            self._last_inlay_refresh = now
            self.workspace_inlay_hint_refresh(None)

    # ---- progress -------------------------------------------------------------------------

    async def begin_progress(self, title: str, on_cancel: Callable[[], None]) -> str | None:
        """Server-initiated work-done progress (cancellable), if the client supports it."""
        window = self.client_capabilities.window
        if window is None or not window.work_done_progress:
            return None
        token = f"tf-insight-{uuid.uuid4().hex[:8]}"
        try:
            await asyncio.wait_for(self.work_done_progress.create_async(token), timeout=5)
        except Exception:
            return None
        future = self.work_done_progress.tokens.get(token)
        if future is not None:
            future.add_done_callback(lambda f: on_cancel() if f.cancelled() else None)
        self.work_done_progress.begin(token, types.WorkDoneProgressBegin(
            title=title, cancellable=True, percentage=0))
        return token

    def report_progress(self, token: str | None, message: str, percentage: int | None = None) -> None:
        if token is not None:
            self.post(self.work_done_progress.report, token,
                      types.WorkDoneProgressReport(message=message, percentage=percentage,
                                                   cancellable=True))

    def end_progress(self, token: str | None, message: str) -> None:
        if token is None:
            return

        def end() -> None:
            self.work_done_progress.end(token, types.WorkDoneProgressEnd(message=message))
            self.work_done_progress.tokens.pop(token, None)

        self.post(end)

    async def in_pool(self, fn: Callable[..., T], *args: Any) -> T:
        return await asyncio.get_running_loop().run_in_executor(self.pool, fn, *args)


def _on_loop(loop: asyncio.AbstractEventLoop) -> bool:
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:
        return False


def _guard(fn: Callable[..., Any], *args: Any) -> None:
    try:
        fn(*args)
    except Exception:  # a message that cannot be sent must not stop the loop
        log.exception("sending %s", getattr(fn, "__name__", fn))


def _is_python(document: types.TextDocumentItem) -> bool:
    return document.language_id in PYTHON_LANGUAGES or document.uri.endswith((".py", ".pyi"))


def _invalid(error: Exception) -> JsonRpcInvalidParams:
    return JsonRpcInvalidParams(str(error))


# ---- lifecycle ------------------------------------------------------------------------


def initialize(ls: TfInsightServer, params: types.InitializeParams) -> None:
    ls.loop = asyncio.get_running_loop()
    ls.encoding = conv.encoding_name(ls.workspace.position_encoding)
    folders = [conv.uri_to_path(f.uri) for f in params.workspace_folders or []]
    if not folders and ls.workspace.root_path:
        folders = [ls.workspace.root_path]
    ls.projects.set_folders(folders)
    text = params.capabilities.text_document
    ls.engine.push = text is None or text.diagnostic is None
    ls.apply_settings(params.initialization_options, initial=True)


async def initialized(ls: TfInsightServer, params: types.InitializedParams) -> None:
    await ls.engine.start()


def did_change_configuration(ls: TfInsightServer,
                             params: types.DidChangeConfigurationParams) -> None:
    raw = params.settings
    if isinstance(raw, dict) and "tfInsight" not in raw and not (
            set(raw) & set(settings_module.KEYS)):
        return  # not ours (or empty): keep the current settings
    ls.apply_settings(raw)


def did_change_folders(ls: TfInsightServer,
                       params: types.DidChangeWorkspaceFoldersParams) -> None:
    ls.projects.set_folders(conv.uri_to_path(uri) for uri in ls.workspace.folders)


def shutdown(ls: TfInsightServer, *args: Any) -> None:
    """Answered at once: sessions are told to stop, the analysis worker is killed."""
    ls.shut_down = True
    ls.sessions.stop_all()
    ls.engine.shutdown()
    ls.pool.shutdown(wait=False, cancel_futures=True)


def exit_(ls: TfInsightServer, *args: Any) -> None:
    """Gone now, even with a workspace check still running on a thread: sessions get a
    moment to end their process trees, then the process exits."""
    ls.sessions.stop_all(wait=5.0)
    ls.engine.shutdown()
    logging.shutdown()
    os._exit(0 if ls.shut_down else 1)


# ---- text documents -------------------------------------------------------------------


def did_open(ls: TfInsightServer, params: types.DidOpenTextDocumentParams) -> None:
    if not _is_python(params.text_document):
        return
    uri = params.text_document.uri
    ls.documents.add(uri)
    if not ls.engine.push and uri in ls.workspace_published:
        ls.publish(uri, [], None)  # pull takes over from checkWorkspace's push
        ls.workspace_published.discard(uri)
    ls.engine.changed(uri)


def did_change(ls: TfInsightServer, params: types.DidChangeTextDocumentParams) -> None:
    uri = params.text_document.uri
    if uri in ls.documents:
        ls.engine.changed(uri)
    elif (key := ls.key_for(uri)) in ls.notebooks:
        ls.engine.changed(key)


def did_save(ls: TfInsightServer, params: types.DidSaveTextDocumentParams) -> None:
    if params.text_document.uri in ls.documents:
        # neighbours read this file from disk: everything open is analysed again
        ls.engine.invalidate_all(ls.open_keys())
        ls.refresh_pull_diagnostics()


def did_close(ls: TfInsightServer, params: types.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    if uri in ls.documents:
        ls.documents.discard(uri)
        ls.engine.closed(uri, [uri])


# ---- notebooks ------------------------------------------------------------------------


def notebook_open(ls: TfInsightServer, params: types.DidOpenNotebookDocumentParams) -> None:
    ls.notebooks.add(params.notebook_document.uri)
    ls.engine.changed(params.notebook_document.uri)


def notebook_change(ls: TfInsightServer,
                    params: types.DidChangeNotebookDocumentParams) -> None:
    uri = params.notebook_document.uri
    if uri in ls.notebooks:
        closed = params.change.cells.structure.did_close if (
            params.change.cells and params.change.cells.structure) else None
        if closed and ls.engine.push:
            for cell in closed:
                ls.publish(cell.uri, [], None)
        ls.engine.changed(uri)


def notebook_save(ls: TfInsightServer, params: types.DidSaveNotebookDocumentParams) -> None:
    if params.notebook_document.uri in ls.notebooks:
        ls.engine.changed(params.notebook_document.uri)


def notebook_close(ls: TfInsightServer,
                   params: types.DidCloseNotebookDocumentParams) -> None:
    uri = params.notebook_document.uri
    ls.notebooks.discard(uri)
    ls.engine.closed(uri, [cell.uri for cell in params.cell_text_documents])


# ---- pull diagnostics -----------------------------------------------------------------


async def pull_diagnostics(ls: TfInsightServer, params: types.DocumentDiagnosticParams
                           ) -> types.DocumentDiagnosticReport:
    uri = params.text_document.uri
    analysed = await ls.engine.analysed(ls.key_for(uri))
    if analysed is None:
        return types.RelatedFullDocumentDiagnosticReport(items=[])
    result_id = f"{uri}@{analysed.version}"
    if ls.engine.generation:
        result_id += f"#{ls.engine.generation}"  # settings changed: same text, new results
    if params.previous_result_id == result_id:
        return types.RelatedUnchangedDocumentDiagnosticReport(result_id=result_id)
    return types.RelatedFullDocumentDiagnosticReport(
        items=analysed.diagnostics.get(uri, []), result_id=result_id)


# ---- hover, code actions, inlay hints -------------------------------------------------


async def analysed_for(ls: TfInsightServer, uri: str) -> Analysed | None:
    key = ls.key_for(uri)
    if key not in ls.documents and key not in ls.notebooks:
        return None
    return await ls.engine.analysed(key)


async def on_hover(ls: TfInsightServer, params: types.HoverParams) -> types.Hover | None:
    analysed = await analysed_for(ls, params.text_document.uri)
    if analysed is None:
        return None
    return hover(analysed.result, params.text_document.uri, params.position, ls.encoding)


async def on_code_action(ls: TfInsightServer, params: types.CodeActionParams
                         ) -> list[types.CodeAction] | None:
    analysed = await analysed_for(ls, params.text_document.uri)
    if analysed is None:
        return None
    workspace_edit = ls.client_capabilities.workspace
    document_changes = bool(workspace_edit and workspace_edit.workspace_edit and
                            workspace_edit.workspace_edit.document_changes)
    return actions.code_actions(analysed, params.text_document.uri, params.range,
                                ls.encoding, ls.cell_version, document_changes) or None


def on_inlay_hint(ls: TfInsightServer, params: types.InlayHintParams
                  ) -> list[types.InlayHint] | None:
    uri = params.text_document.uri
    annotations = ls.sessions.annotations(conv.uri_to_path(uri))
    if not annotations:
        return None
    document = ls.workspace.text_documents.get(unquote(uri))
    lines = split_lines(document.source) if document is not None else []
    hints = []
    for annotation in annotations:
        end = conv.end_of_line(lines, annotation.line, ls.encoding)
        if end is None or not params.range.start.line <= end.line <= params.range.end.line:
            continue
        hints.append(types.InlayHint(
            position=end, label=annotation.label,
            tooltip=types.MarkupContent(kind=types.MarkupKind.Markdown, value=annotation.tooltip),
            padding_left=True))
    return hints


def session_annotations(ls: TfInsightServer, params: Any) -> list[dict[str, Any]]:
    uri = getattr(params, "uri", None)
    if not isinstance(uri, str):
        raise JsonRpcInvalidParams(f'{SESSION_ANNOTATIONS} expects {{"uri": "file:///..."}}')
    return [a.to_dict() for a in ls.sessions.annotations(conv.uri_to_path(uri))]


async def server_info(ls: TfInsightServer, params: Any) -> dict[str, Any]:
    """Debug facts (tests use them: TensorFlow never imported, nothing left running)."""
    timings, cpu = sorted(ls.engine.timings), sorted(ls.engine.cpu_timings)
    worker_status = await ls.engine.in_worker(worker.status)
    return {
        "worker": worker_status,
        "version": __version__,
        "pid": os.getpid(),
        "python": sys.executable,
        "tensorflowImported": "tensorflow" in sys.modules,
        "kerasImported": "keras" in sys.modules or "tf_keras" in sys.modules,
        "sessions": ls.sessions.running,
        "threads": sorted(t.name for t in threading.enumerate()),
        "openDocuments": len(ls.documents) + len(ls.notebooks),
        "positionEncoding": ls.encoding,
        "pushDiagnostics": ls.engine.push,
        "analysisSecondsP50": timings[len(timings) // 2] if timings else None,
        "analysisCpuSecondsP50": cpu[len(cpu) // 2] if cpu else None,
        "settings": ls.settings.to_dict(),
        "rules": [rule.code for rule in rules.RULES],
    }


# ---- commands -------------------------------------------------------------------------


def show_rule(ls: TfInsightServer, *args: Any) -> dict[str, str]:
    try:
        return commands.show_rule(args)
    except commands.CommandError as error:
        raise _invalid(error) from error


async def explain_error(ls: TfInsightServer, *args: Any) -> dict[str, Any]:
    try:
        return await ls.in_pool(commands.explain_error, args, ls.root_for_commands())
    except commands.CommandError as error:
        raise _invalid(error) from error


async def check_workspace(ls: TfInsightServer, *args: Any) -> dict[str, Any]:
    cancel = threading.Event()
    ls.protocol.on_cancel(cancel.set)  # a command's coroutine is not cancelled with it
    token = await ls.begin_progress("TF Insight: checking the workspace", cancel.set)
    try:
        return await ls.in_pool(commands.run_workspace_check, ls, token, cancel,
                               set(ls.documents))
    except asyncio.CancelledError:  # $/cancelRequest
        cancel.set()
        raise
    finally:
        ls.end_progress(token, "cancelled" if cancel.is_set() else "done")


async def start_session(ls: TfInsightServer, *args: Any) -> dict[str, Any]:
    try:
        if not ls.settings.trusted_workspace:
            raise commands.CommandError(
                "a guided session runs your script, so it starts only in a trusted "
                "workspace (the editor sends trustedWorkspace: true once you trust it)")
        request = parse_request(args, ls.root_for_commands(), ls.settings.interpreter)
    except commands.CommandError as error:
        raise _invalid(error) from error
    session = start_for_client(ls, request, ls.settings.session)
    return {"sessionId": session.id}


def debug_configuration(ls: TfInsightServer, *args: Any) -> dict[str, Any]:
    """What the editor needs to debug a script with breakpoints in graph code: the debugpy
    adapter to start (in this server's interpreter, which has debugpy; kept from other local
    processes) and the `launch` arguments that run the script under `tf_insight.debug` in the
    user's interpreter."""
    try:
        if not ls.settings.trusted_workspace:
            raise commands.CommandError(
                "debugging runs your script, so it starts only in a trusted workspace")
        request = parse_request(args, ls.root_for_commands(), ls.settings.interpreter,
                                commands.DEBUG_CONFIGURATION)
    except commands.CommandError as error:
        raise _invalid(error) from error
    launch = launch_arguments(request.python or sys.executable, request.script, request.args,
                              eager=args[0].get("eager") is True, cwd=request.cwd,
                              env=dict(request.env))
    return {"adapter": editor_adapter(), "launch": launch}


def stop_session(ls: TfInsightServer, *args: Any) -> dict[str, Any]:
    payload = args[0] if args else None
    session_id = payload.get("sessionId") if isinstance(payload, dict) else payload
    if not isinstance(session_id, str):
        raise JsonRpcInvalidParams(f'{commands.STOP_SESSION} expects [{{"sessionId": "..."}}]')
    return {"stopped": ls.sessions.stop(session_id)}


def create_server() -> TfInsightServer:
    """A server with every handler of this module registered."""
    server = TfInsightServer()
    for method, options, handler in FEATURES:
        server.feature(method, options)(handler)
    for command, handler in COMMANDS:
        server.command(command)(handler)
    return server


PULL_DIAGNOSTICS = types.DiagnosticOptions(
    identifier="tf-insight", inter_file_dependencies=True, workspace_diagnostics=False)
QUICK_FIXES = types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix])
# LSP method, its options, the handler
FEATURES: list[tuple[str, Any, Callable[..., Any]]] = [
    (types.INITIALIZE, None, initialize),
    (types.INITIALIZED, None, initialized),
    (types.WORKSPACE_DID_CHANGE_CONFIGURATION, None, did_change_configuration),
    (types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS, None, did_change_folders),
    (types.SHUTDOWN, None, shutdown),
    (types.EXIT, None, exit_),
    (types.TEXT_DOCUMENT_DID_OPEN, None, did_open),
    (types.TEXT_DOCUMENT_DID_CHANGE, None, did_change),
    (types.TEXT_DOCUMENT_DID_SAVE, None, did_save),
    (types.TEXT_DOCUMENT_DID_CLOSE, None, did_close),
    (types.NOTEBOOK_DOCUMENT_DID_OPEN, None, notebook_open),
    (types.NOTEBOOK_DOCUMENT_DID_CHANGE, None, notebook_change),
    (types.NOTEBOOK_DOCUMENT_DID_SAVE, None, notebook_save),
    (types.NOTEBOOK_DOCUMENT_DID_CLOSE, None, notebook_close),
    (types.TEXT_DOCUMENT_DIAGNOSTIC, PULL_DIAGNOSTICS, pull_diagnostics),
    (types.TEXT_DOCUMENT_HOVER, None, on_hover),
    (types.TEXT_DOCUMENT_CODE_ACTION, QUICK_FIXES, on_code_action),
    (types.TEXT_DOCUMENT_INLAY_HINT, None, on_inlay_hint),
    (SESSION_ANNOTATIONS, None, session_annotations),
    (SERVER_INFO, None, server_info),
]
COMMANDS: list[tuple[str, Callable[..., Any]]] = [
    (commands.SHOW_RULE, show_rule),
    (commands.EXPLAIN_ERROR, explain_error),
    (commands.CHECK_WORKSPACE, check_workspace),
    (commands.START_SESSION, start_session),
    (commands.STOP_SESSION, stop_session),
    (commands.DEBUG_CONFIGURATION, debug_configuration),
]
