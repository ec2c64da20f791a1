// "TF Insight: Explain Graph-Mode Error": pick the text, ask the server, show the panel.
import * as crypto from "crypto";
import * as fs from "fs";
import * as vscode from "vscode";
import { explanationHtml, frameLinks } from "./core/explainHtml";
import { cellOutputText, ERROR_MIME, pickExplainText, type PickedText } from "./core/explainText";
import { ServerCommands, type ExplainResult, type Explanation } from "./core/protocol";
import { DIAGNOSTIC_SOURCE } from "./ids";
import type { ServerManager } from "./server";

export function diagnosticCode(d: vscode.Diagnostic): string | undefined {
  const c = d.code;
  if (c === undefined) {
    return undefined;
  }
  return typeof c === "object" ? String(c.value) : String(c);
}

/** Open a file at a 1-based line and select it. */
export async function openAt(
  path: string,
  line1: number,
  column: vscode.ViewColumn = vscode.ViewColumn.One,
  preview = false,
): Promise<vscode.TextEditor | undefined> {
  if (!fs.existsSync(path)) {
    void vscode.window.showWarningMessage(`TF Insight: ${path} does not exist on this machine.`);
    return undefined;
  }
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(path));
  const line = Math.min(Math.max(line1 - 1, 0), Math.max(doc.lineCount - 1, 0));
  const range = doc.lineAt(line).range;
  const editor = await vscode.window.showTextDocument(doc, { viewColumn: column, selection: new vscode.Selection(range.start, range.start), preview });
  editor.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  return editor;
}

interface RelatedFix {
  action: vscode.CodeAction;
  uri: vscode.Uri;
}

function waitForDiagnostics(uri: vscode.Uri, timeoutMs: number): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      sub.dispose();
      clearTimeout(timer);
      resolve();
    };
    const sub = vscode.languages.onDidChangeDiagnostics((e) => {
      if (e.uris.some((u) => u.toString() === uri.toString())) {
        done();
      }
    });
    const timer = setTimeout(done, timeoutMs);
  });
}

/** A quick fix from the server for a diagnostic of the explanation's rule, nearest the user frame first. */
export async function findRelatedFix(e: Explanation): Promise<RelatedFix | undefined> {
  const rule = e.rule;
  if (!rule) {
    return undefined;
  }
  const paths = new Set<string>();
  if (e.user_frame?.path) {
    paths.add(e.user_frame.path);
  }
  for (const f of e.findings ?? []) {
    if (f.path) {
      paths.add(f.path);
    }
  }
  // Diagnostics exist only for open documents: open the files involved (without showing them).
  for (const p of paths) {
    if (!fs.existsSync(p)) {
      continue;
    }
    const uri = vscode.Uri.file(p);
    const known = vscode.languages.getDiagnostics(uri).some((d) => d.source === DIAGNOSTIC_SOURCE);
    if (!known) {
      const waiting = waitForDiagnostics(uri, 4000);
      await vscode.workspace.openTextDocument(uri);
      await waiting;
    }
  }
  const userPath = e.user_frame?.path;
  const userLine = (e.user_frame?.line ?? 1) - 1;
  const candidates: Array<{ uri: vscode.Uri; d: vscode.Diagnostic; score: number }> = [];
  for (const [uri, diags] of vscode.languages.getDiagnostics()) {
    for (const d of diags) {
      if (d.source === DIAGNOSTIC_SOURCE && diagnosticCode(d) === rule) {
        const sameFile = uri.fsPath === userPath;
        candidates.push({ uri, d, score: (sameFile ? 0 : 1_000_000) + Math.abs(d.range.start.line - userLine) });
      }
    }
  }
  candidates.sort((a, b) => a.score - b.score);
  for (const c of candidates.slice(0, 5)) {
    const actions = await vscode.commands.executeCommand<vscode.CodeAction[] | undefined>(
      "vscode.executeCodeActionProvider",
      c.uri,
      c.d.range,
      vscode.CodeActionKind.QuickFix.value,
    );
    const fixes = (actions ?? []).filter(
      (a) => (a.edit !== undefined || a.command !== undefined) && !/noqa|explain|documentation/i.test(a.title),
    );
    const best = fixes.find((a) => a.isPreferred) ?? fixes.find((a) => a.diagnostics?.some((d) => diagnosticCode(d) === rule)) ?? fixes[0];
    if (best) {
      return { action: best, uri: c.uri };
    }
  }
  return undefined;
}

export async function applyCodeAction(fix: RelatedFix): Promise<boolean> {
  const { action } = fix;
  let ok = true;
  if (action.edit) {
    ok = await vscode.workspace.applyEdit(action.edit);
  }
  if (ok && action.command) {
    const args: unknown[] = action.command.arguments ?? [];
    await vscode.commands.executeCommand(action.command.command, ...args);
  }
  if (ok) {
    const doc = await vscode.workspace.openTextDocument(fix.uri);
    const first = action.edit?.get(fix.uri)[0]?.range.start;
    await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.One, selection: first ? new vscode.Selection(first, first) : undefined });
  }
  return ok;
}

/** A frame in a notebook cell: `In[3]` is the cell that ran third; else the explained cell. */
async function openCellAt(notebook: vscode.NotebookDocument, cellLabel: string, line1: number, fallback?: vscode.NotebookCell): Promise<void> {
  const count = /^In ?\[(\d+)\]$/.exec(cellLabel)?.[1];
  const cell = notebook.getCells().find((c) => count !== undefined && c.executionSummary?.executionOrder === Number(count)) ?? fallback;
  if (!cell) {
    void vscode.window.showWarningMessage(`TF Insight: no cell ${cellLabel} in ${notebook.uri.fsPath}.`);
    return;
  }
  await revealCell(notebook, cell, line1);
}

/** Line `line1` of cell `number` (1-based, all cells counted) of the notebook at `path`, as a
 * traced notebook's steps name it. */
export async function openNotebookCell(path: string, number: number, line1: number): Promise<void> {
  const notebook = await vscode.workspace.openNotebookDocument(vscode.Uri.file(path));
  const cell = notebook.cellCount >= number ? notebook.cellAt(number - 1) : undefined;
  if (!cell) {
    void vscode.window.showWarningMessage(`TF Insight: ${path} has no cell ${number}.`);
    return;
  }
  await revealCell(notebook, cell, line1);
}

async function revealCell(notebook: vscode.NotebookDocument, cell: vscode.NotebookCell, line1: number): Promise<void> {
  // In the notebook's own editor, not in the panel's column.
  const viewColumn = vscode.window.visibleNotebookEditors.find((e) => e.notebook === notebook)?.viewColumn ?? vscode.ViewColumn.One;
  const editor = await vscode.window.showNotebookDocument(notebook, { viewColumn, selections: [new vscode.NotebookRange(cell.index, cell.index + 1)] });
  editor.revealRange(new vscode.NotebookRange(cell.index, cell.index + 1), vscode.NotebookEditorRevealType.InCenterIfOutsideViewport);
  const line = Math.min(Math.max(line1 - 1, 0), Math.max(cell.document.lineCount - 1, 0));
  const start = new vscode.Position(line, 0);
  await vscode.window.showTextDocument(cell.document, { viewColumn: editor.viewColumn, selection: new vscode.Selection(start, start) });
}

/** Where an explained text came from, to open its frames there. */
export interface ExplainOrigin {
  cell?: vscode.NotebookCell;
}

export class ExplainPanel {
  private static current: ExplainPanel | undefined;
  private origin: ExplainOrigin = {};
  private explanation: Explanation | null = null;
  private fix: RelatedFix | undefined;

  private constructor(private readonly panel: vscode.WebviewPanel) {
    panel.onDidDispose(() => {
      if (ExplainPanel.current === this) {
        ExplainPanel.current = undefined;
      }
    });
    panel.webview.onDidReceiveMessage((msg: { type?: string; frame?: number }) => {
      void this.onMessage(msg);
    });
  }

  static async show(result: ExplainResult, title = "TF Insight: Explanation", origin: ExplainOrigin = {}): Promise<void> {
    let current = ExplainPanel.current;
    if (!current) {
      const panel = vscode.window.createWebviewPanel("tfInsight.explanation", title, { viewColumn: vscode.ViewColumn.Beside, preserveFocus: false }, {
        enableScripts: true,
        enableFindWidget: true,
        localResourceRoots: [],
      });
      current = new ExplainPanel(panel);
      ExplainPanel.current = current;
    }
    current.panel.title = title;
    current.origin = origin;
    await current.render(result);
    current.panel.reveal(undefined, false);
  }

  private async render(result: ExplainResult): Promise<void> {
    this.explanation = result.explanation ?? null;
    const nonce = crypto.randomBytes(16).toString("base64");
    let markdownHtml: string | undefined;
    if (!this.explanation && result.markdown) {
      try {
        markdownHtml = await vscode.commands.executeCommand<string>("markdown.api.render", result.markdown);
      } catch {
        markdownHtml = undefined;
      }
    }
    const draw = (): void => {
      this.panel.webview.html = explanationHtml(this.explanation, {
        nonce,
        cspSource: this.panel.webview.cspSource,
        fixAvailable: this.fix !== undefined,
        fixLabel: this.fix ? `Apply quick fix: ${this.fix.action.title}` : undefined,
        markdownHtml: markdownHtml ?? (result.markdown ? `<pre>${result.markdown.replace(/&/g, "&amp;").replace(/</g, "&lt;")}</pre>` : undefined),
      });
    };
    this.fix = undefined;
    draw();
    if (this.explanation?.rule) {
      this.fix = await findRelatedFix(this.explanation).catch(() => undefined);
      if (this.fix) {
        draw();
      }
    }
  }

  private async onMessage(msg: { type?: string; frame?: number }): Promise<void> {
    const e = this.explanation;
    if (!e) {
      return;
    }
    const frame = msg.type === "open" && typeof msg.frame === "number" ? frameLinks(e)[msg.frame] : msg.type === "openUserFrame" ? e.user_frame : undefined;
    if (frame) {
      const cell = this.origin.cell;
      if (frame.cell && cell) {
        await openCellAt(cell.notebook, frame.cell, frame.line, cell);
      } else {
        await openAt(frame.path, frame.line);
      }
    } else if (msg.type === "applyFix" && this.fix) {
      const ok = await applyCodeAction(this.fix);
      void vscode.window.showInformationMessage(ok ? `TF Insight: applied "${this.fix.action.title}".` : "TF Insight: the quick fix could not be applied.");
    }
  }
}

async function terminalSelection(): Promise<string | undefined> {
  const terminal = vscode.window.activeTerminal;
  if (!terminal) {
    return undefined;
  }
  const direct = (terminal as { selection?: string }).selection;
  if (typeof direct === "string") {
    return direct;
  }
  // Older VS Code: copy the terminal selection through the clipboard and restore it.
  const saved = await vscode.env.clipboard.readText();
  await vscode.env.clipboard.writeText("");
  await vscode.commands.executeCommand("workbench.action.terminal.copySelection");
  const copied = await vscode.env.clipboard.readText();
  await vscode.env.clipboard.writeText(saved);
  return copied || undefined;
}

function isNotebookCell(value: unknown): value is vscode.NotebookCell {
  return typeof value === "object" && value !== null && "outputs" in value && "notebook" in value && "document" in value;
}

/**
 * The notebook cell whose output to explain: the one the cell menu was opened on, else one of
 * the active notebook's cells (see below).
 */
function notebookCellToExplain(arg: unknown): vscode.NotebookCell | undefined {
  const given = isNotebookCell(arg) ? arg : typeof arg === "object" && arg !== null && "cell" in arg ? arg.cell : undefined;
  if (isNotebookCell(given)) {
    return given;
  }
  const editor = vscode.window.activeNotebookEditor;
  if (!editor) {
    return undefined;
  }
  const cells = editor.notebook.getCells();
  const selected = editor.selections[0];
  const inSelection = selected ? cells.slice(selected.start, Math.max(selected.end, selected.start + 1)) : [];
  const failed = (c: vscode.NotebookCell): boolean => c.outputs.some((o) => o.items.some((i) => i.mime === ERROR_MIME));
  // A failed selected cell, else the last failed cell, else a selected cell's output (a TF warning).
  return inSelection.find(failed) ?? [...cells].reverse().find(failed) ?? inSelection.find((c) => c.outputs.length > 0);
}

function outputTextOf(cell: vscode.NotebookCell): string {
  const decoder = new TextDecoder();
  return cellOutputText(cell.outputs.flatMap((o) => o.items.map((i) => ({ mime: i.mime, text: decoder.decode(i.data) }))));
}

export async function gatherExplainText(fromTerminal: boolean, arg?: unknown): Promise<(PickedText & ExplainOrigin) | undefined> {
  const editor = vscode.window.activeTextEditor;
  const editorSelection = !fromTerminal && editor && !editor.selection.isEmpty ? editor.document.getText(editor.selection) : undefined;
  const cell = editorSelection || fromTerminal ? undefined : notebookCellToExplain(arg);
  const picked = pickExplainText({
    editorSelection,
    terminalSelection: editorSelection || cell ? undefined : await terminalSelection().catch(() => undefined),
    notebookOutput: cell ? outputTextOf(cell) : undefined,
    clipboard: await vscode.env.clipboard.readText(),
  });
  if (picked) {
    return picked.source === "notebook" ? { ...picked, cell } : picked;
  }
  const typed = await vscode.window.showInputBox({
    title: "TF Insight: Explain Graph-Mode Error",
    prompt: "Paste the error message or traceback (or select it in an editor or terminal first)",
    placeHolder: "ValueError: The custom_gradient decorator currently supports keywords arguments only when eager execution is enabled.",
    ignoreFocusOut: true,
  });
  return typed && typed.trim() ? { text: typed, source: "input" } : undefined;
}

export async function explainCommand(server: ServerManager, log: vscode.LogOutputChannel, fromTerminal: boolean, arg?: unknown): Promise<void> {
  const picked = await gatherExplainText(fromTerminal, arg);
  if (!picked) {
    return;
  }
  log.info(`Explain: ${picked.text.length} characters from the ${picked.source}`);
  try {
    const result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Window, title: "TF Insight: explaining…" },
      () => server.execute<ExplainResult | null>(ServerCommands.explainError, [{ text: picked.text }]),
    );
    if (!result || (!result.explanation && !result.markdown)) {
      void vscode.window.showInformationMessage("TF Insight: no explanation for this text — it does not look like a known graph-mode error.");
      return;
    }
    await ExplainPanel.show(result, undefined, { cell: picked.cell });
  } catch (err) {
    void vscode.window.showErrorMessage(`TF Insight: could not explain: ${err instanceof Error ? err.message : String(err)}`);
  }
}
