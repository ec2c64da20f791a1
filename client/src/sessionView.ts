// The "TF Insight" tree view: session → steps (probe) → annotation details → verdict.
import * as path from "path";
import * as vscode from "vscode";
import { annotationMarkdown, annotationText, modeText, stepTitle, verdictMarkdown, verdictText } from "./core/annotation";
import { shortPath } from "./core/explainHtml";
import type { SessionStep } from "./core/protocol";
import { Commands } from "./ids";
import type { SessionController } from "./session";

type Node =
  | { kind: "header" }
  | { kind: "step"; index: number }
  | { kind: "detail"; index: number; label: string; description?: string; place?: { path: string; line: number } }
  | { kind: "verdict" }
  | { kind: "message"; label: string };

function details(step: SessionStep, index: number): Node[] {
  const out: Node[] = [{ kind: "detail", index, label: annotationText(step) }];
  if (step.user_frame) {
    const f = step.user_frame;
    out.push({ kind: "detail", index, label: `your code: ${path.basename(f.path)}:${f.line}`, description: f.function ?? "", place: { path: f.path, line: f.line } });
  }
  if (step.location) {
    const l = step.location;
    out.push({ kind: "detail", index, label: `library: ${shortPath(l.path)}:${l.line}`, place: { path: l.path, line: l.line } });
  }
  return out;
}

export class SessionTree implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  // Stable node objects: TreeView.reveal finds elements by identity.
  private readonly headerNode: Node = { kind: "header" };
  private readonly verdictNode: Node = { kind: "verdict" };
  private stepNodes: Node[] = [];
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly view: vscode.TreeView<Node>;
  private readonly disposables: vscode.Disposable[] = [this.changed];

  constructor(private readonly session: SessionController, viewId: string) {
    this.view = vscode.window.createTreeView(viewId, { treeDataProvider: this, showCollapseAll: true });
    this.disposables.push(this.view, session.onDidChange(() => { this.update(); }));
  }

  private update(): void {
    const s = this.session;
    this.view.message = s.steps.length > 0 || s.running ? undefined : s.state === "failed" ? `Session failed: ${s.error ?? ""}` : undefined;
    this.view.badge = s.running && s.steps.length > 0 ? { value: s.steps.length, tooltip: `${s.steps.length} steps so far` } : undefined;
    this.changed.fire(undefined);
  }

  getChildren(node?: Node): Node[] {
    const s = this.session;
    if (!node) {
      if (s.state === "idle" && s.steps.length === 0) {
        return [];
      }
      while (this.stepNodes.length < s.steps.length) {
        this.stepNodes.push({ kind: "step", index: this.stepNodes.length });
      }
      this.stepNodes.length = s.steps.length;
      const nodes: Node[] = [this.headerNode, ...this.stepNodes];
      if (s.result?.verdict) {
        nodes.push(this.verdictNode);
      } else if (s.state === "done") {
        nodes.push({ kind: "message", label: s.result?.exception ? "Ended without a verdict" : "Ended: no graph-mode hazard found" });
      } else if (s.state === "failed") {
        nodes.push({ kind: "message", label: `Failed: ${s.error ?? "unknown error"}` });
      }
      return nodes;
    }
    if (node.kind === "step") {
      const step = s.steps[node.index];
      return step ? details(step, node.index) : [];
    }
    return [];
  }

  getParent(node: Node): Node | undefined {
    return node.kind === "detail" ? this.stepNodes[node.index] : undefined;
  }

  /** Show the verdict (end of a session) in the view. */
  async revealVerdict(): Promise<void> {
    if (this.session.result?.verdict) {
      this.getChildren();
      await this.view.reveal(this.verdictNode, { select: true, focus: false });
    }
  }

  getTreeItem(node: Node): vscode.TreeItem {
    const s = this.session;
    switch (node.kind) {
      case "header": {
        const name = s.launch ? path.basename(s.launch.script) : "session";
        const item = new vscode.TreeItem(name, vscode.TreeItemCollapsibleState.None);
        const states: Record<string, string> = { starting: "starting…", running: "running", stopping: "stopping…", done: "finished", failed: "failed", idle: "" };
        const r = s.result;
        const state = r?.stopped_after ? `stopped after ${r.stopped_after}` : (states[s.state] ?? s.state);
        item.description = `${state} · ${s.steps.length} steps${r?.duration_s !== undefined ? ` · ${r.duration_s.toFixed(1)} s` : ""}${
          r?.exit_code !== undefined && r.exit_code !== null ? ` · exit ${r.exit_code}` : ""
        }`;
        item.iconPath = new vscode.ThemeIcon(s.running ? "sync~spin" : s.state === "failed" ? "error" : "debug-alt");
        item.tooltip = s.launch ? `${s.launch.python} ${s.launch.script} ${s.launch.args.join(" ")}` : undefined;
        return item;
      }
      case "step": {
        const step = s.steps[node.index] ?? {};
        const item = new vscode.TreeItem(`${node.index + 1}. ${stepTitle(step)}`, vscode.TreeItemCollapsibleState.Collapsed);
        item.description = modeText(step) ?? "";
        item.tooltip = new vscode.MarkdownString(annotationMarkdown(step));
        item.iconPath = new vscode.ThemeIcon(step.executing_eagerly === false ? "symbol-event" : "debug-stackframe");
        const stops = s.stops();
        const idx = stops.findIndex((st) => st.step === node.index);
        if (idx >= 0) {
          item.command = { command: Commands.revealStep, title: "Go to Step", arguments: [idx] };
        }
        if (s.position >= 0 && stops[s.position]?.step === node.index) {
          item.iconPath = new vscode.ThemeIcon("debug-stackframe-focused", new vscode.ThemeColor("debugIcon.breakpointCurrentStackframeForeground"));
        }
        return item;
      }
      case "detail": {
        const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.None);
        item.description = node.description;
        item.tooltip = node.place ? `${node.place.path}:${node.place.line}` : node.label;
        if (node.place) {
          const stops = s.stops();
          const want = node.place;
          const idx = stops.findIndex((st) => st.step === node.index && st.path === want.path && st.line === want.line - 1);
          item.command = idx >= 0
            ? { command: Commands.revealStep, title: "Go to Step", arguments: [idx] }
            : { command: "vscode.open", title: "Open", arguments: [vscode.Uri.file(want.path), { selection: new vscode.Range(want.line - 1, 0, want.line - 1, 0) }] };
          item.iconPath = new vscode.ThemeIcon("go-to-file");
        } else {
          item.iconPath = new vscode.ThemeIcon("comment");
        }
        return item;
      }
      case "verdict": {
        const v = s.result?.verdict ?? {};
        const item = new vscode.TreeItem(`Verdict: ${verdictText(v)}`, vscode.TreeItemCollapsibleState.None);
        item.description = v.summary ?? "";
        item.tooltip = new vscode.MarkdownString(verdictMarkdown(v));
        item.iconPath = new vscode.ThemeIcon("lightbulb", new vscode.ThemeColor("editorLightBulb.foreground"));
        const stops = s.stops();
        item.command = { command: Commands.revealStep, title: "Show Verdict", arguments: [stops.length - 1] };
        return item;
      }
      case "message":
        return new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.None);
    }
  }

  dispose(): void {
    this.disposables.forEach((d) => { d.dispose(); });
  }
}
