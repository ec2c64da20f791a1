// Inline session annotations: after-line text at each step's user line and at the library line
// its probe hit (hover = the full annotation), the verdict at the user's line it names, and a
// highlight on the line of the current walk stop (user or library file).
import * as vscode from "vscode";
import { annotationMarkdown, groupAnnotations, verdictMarkdown, type LineAnnotation, type WalkStop } from "./core/annotation";
import { Colors } from "./ids";
import type { SessionController } from "./session";

export class InlineAnnotations implements vscode.Disposable {
  private readonly annotationType = vscode.window.createTextEditorDecorationType({
    after: {
      margin: "0 0 0 2em",
      color: new vscode.ThemeColor(Colors.annotationForeground),
      fontStyle: "italic",
    },
    rangeBehavior: vscode.DecorationRangeBehavior.ClosedClosed,
  });
  private readonly currentType = vscode.window.createTextEditorDecorationType({
    isWholeLine: true,
    backgroundColor: new vscode.ThemeColor(Colors.currentStepBackground),
    overviewRulerColor: new vscode.ThemeColor(Colors.annotationForeground),
    overviewRulerLane: vscode.OverviewRulerLane.Center,
  });
  private byPath = new Map<string, LineAnnotation[]>();
  /** Files whose annotations were dropped because the user edited them. */
  private readonly stale = new Set<string>();
  private current: WalkStop | undefined;
  private readonly disposables: vscode.Disposable[] = [this.annotationType, this.currentType];

  constructor(private readonly session: SessionController) {
    this.disposables.push(
      session.onDidChange(() => { this.refresh(); }),
      vscode.window.onDidChangeVisibleTextEditors(() => { this.render(); }),
      vscode.workspace.onDidChangeTextDocument((e) => {
        const p = e.document.uri.fsPath;
        if (e.contentChanges.length > 0 && this.byPath.has(p)) {
          // The lines no longer match what ran: clear this file's annotations.
          this.stale.add(p);
          this.byPath.delete(p);
          this.render();
        }
      }),
    );
  }

  private refresh(): void {
    if (this.session.steps.length === 0) {
      this.stale.clear();
    }
    this.byPath = groupAnnotations(this.session.steps, this.session.result?.verdict);
    for (const p of this.stale) {
      this.byPath.delete(p);
    }
    const stops = this.session.stops();
    this.current = this.session.position >= 0 ? stops[this.session.position] : undefined;
    this.render();
  }

  /** Annotations on a file (for tests and the tree). */
  annotationsFor(path: string): readonly LineAnnotation[] {
    return this.byPath.get(path) ?? [];
  }

  private render(): void {
    for (const editor of vscode.window.visibleTextEditors) {
      const p = editor.document.uri.fsPath;  // a notebook cell's is its notebook's
      const cell = cellNumber(editor.document);
      const list = (editor.document.uri.scheme === "file" || cell !== undefined ? this.byPath.get(p) ?? [] : [])
        .filter((a) => a.cell === cell);
      const options: vscode.DecorationOptions[] = [];
      for (const a of list) {
        if (a.line >= editor.document.lineCount) {
          continue;
        }
        const line = editor.document.lineAt(a.line);
        // The step shown inline first, then the latest others.
        const order = [a.shown, ...a.steps.filter((i) => i !== a.shown).reverse()].filter((i) => i >= 0).slice(0, 3);
        const hover = new vscode.MarkdownString(
          [...(a.verdict ? [verdictMarkdown(a.verdict)] : []), ...order.map((i) => annotationMarkdown(this.session.steps[i] ?? {}))]
            .join("\n\n---\n\n") +
            (a.steps.length > 3 ? `\n\n_…and ${a.steps.length - 3} more steps on this line (see the TF Insight view)._` : ""),
        );
        options.push({
          range: new vscode.Range(line.range.start.line, line.firstNonWhitespaceCharacterIndex, line.range.end.line, line.range.end.character),
          hoverMessage: hover,
          renderOptions: { after: { contentText: a.text } },
        });
      }
      editor.setDecorations(this.annotationType, options);
      const cur = this.current;
      editor.setDecorations(
        this.currentType,
        cur && cur.path === p && cur.cell === cell && cur.line < editor.document.lineCount ? [editor.document.lineAt(cur.line).range] : [],
      );
    }
  }

  dispose(): void {
    this.disposables.forEach((d) => { d.dispose(); });
  }
}

/** The number of the notebook cell a document is (1-based, all cells counted, as a traced
 * notebook's steps name it), or undefined for a file. */
function cellNumber(document: vscode.TextDocument): number | undefined {
  if (document.uri.scheme !== "vscode-notebook-cell") {
    return undefined;
  }
  for (const notebook of vscode.workspace.notebookDocuments) {
    const cell = notebook.getCells().find((c) => c.document === document);
    if (cell) {
      return cell.index + 1;
    }
  }
  return undefined;
}
