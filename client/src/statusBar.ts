// Status bar item: server state · session state · number of TF Insight findings.
import * as vscode from "vscode";
import { CONFIG_SECTION, Commands, DIAGNOSTIC_SOURCE } from "./ids";
import type { ServerManager } from "./server";
import type { SessionController } from "./session";

export function countFindings(): number {
  let n = 0;
  for (const [, diags] of vscode.languages.getDiagnostics()) {
    n += diags.filter((d) => d.source === DIAGNOSTIC_SOURCE).length;
  }
  return n;
}

export class StatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem("tfInsight.status", vscode.StatusBarAlignment.Left, 50);
  private readonly disposables: vscode.Disposable[] = [this.item];

  constructor(private readonly server: ServerManager, private readonly session: SessionController) {
    this.item.name = "TF Insight";
    this.disposables.push(
      server.onDidChangeState(() => { this.update(); }),
      session.onDidChange(() => { this.update(); }),
      vscode.languages.onDidChangeDiagnostics(() => { this.update(); }),
    );
    this.update();
    this.item.show();
  }

  update(): void {
    const s = this.server;
    const findings = countFindings();
    const icon: Record<string, string> = {
      running: "$(pulse)",
      starting: "$(loading~spin)",
      stopped: "$(circle-slash)",
      "unusable-interpreter": "$(warning)",
      failed: "$(error)",
    };
    const serverText: Record<string, string> = {
      running: "ready",
      starting: "starting",
      stopped: "stopped",
      "unusable-interpreter": "no usable interpreter",
      failed: "failed",
    };
    const parts = [`${icon[s.state] ?? ""} TFI ${serverText[s.state] ?? s.state}`];
    const sess = this.session;
    if (sess.running) {
      parts.push(`$(debug-alt) session: ${sess.steps.length} steps`);
    } else if (sess.state === "done") {
      parts.push(`session: ${sess.result?.verdict?.rule ?? "done"}`);
    }
    parts.push(`${findings} finding${findings === 1 ? "" : "s"}`);
    this.item.text = parts.join(" · ");
    const md = new vscode.MarkdownString(
      [
        `**TF Insight**`,
        `- server: ${serverText[s.state] ?? s.state}${s.stateDetail ? ` — ${s.stateDetail}` : ""}`,
        `- interpreter: \`${s.interpreter?.command ?? "?"}\` (${s.interpreter?.source ?? "?"})`,
        `- session: ${sess.state}${sess.steps.length ? `, ${sess.steps.length} steps` : ""}`,
        `- findings: ${findings}`,
        vscode.workspace.isTrusted ? "" : "- untrusted workspace: static analysis only",
      ].join("\n"),
    );
    this.item.tooltip = md;
    this.item.command = s.state === "unusable-interpreter"
      ? { title: "Choose Interpreter", command: "workbench.action.openSettings", arguments: [`${CONFIG_SECTION}.interpreter`] }
      : Commands.showOutput;
    this.item.backgroundColor = s.state === "unusable-interpreter" || s.state === "failed" ? new vscode.ThemeColor("statusBarItem.warningBackground") : undefined;
  }

  dispose(): void {
    this.disposables.forEach((d) => { d.dispose(); });
  }
}
