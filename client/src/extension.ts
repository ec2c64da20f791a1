// TF Insight for VS Code: a thin client over the TF Insight language server. All analysis is
// in the server (Python); this file wires the VS Code features together.
import * as vscode from "vscode";
import type { Middleware } from "vscode-languageclient/node";
import { checkWorkspace } from "./checkWorkspace";
import { GraphDebugger } from "./debug";
import { verdictText, type WalkStop } from "./core/annotation";
import { verdictExplanation } from "./core/explainHtml";
import { ServerCommands } from "./core/protocol";
import { InlineAnnotations } from "./decorations";
import { explainCommand, ExplainPanel, openAt, openNotebookCell } from "./explain";
import { Commands, Views } from "./ids";
import { PythonExtensionBridge } from "./python";
import { ServerManager } from "./server";
import { SessionController } from "./session";
import { SessionTree } from "./sessionView";
import { StatusBar } from "./statusBar";

export interface TfInsightApi {
  server: ServerManager;
  session: SessionController;
  graphDebugger: GraphDebugger;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

export function activate(context: vscode.ExtensionContext): TfInsightApi {
  const log = vscode.window.createOutputChannel("TF Insight", { log: true });
  context.subscriptions.push(log);
  const python = new PythonExtensionBridge(log);
  context.subscriptions.push(python);

  // Server commands used from code actions (e.g. "explain this rule") return data that nobody
  // would see: show it in the explanation panel.
  const middleware: Middleware = {
    // The server also serves session annotations as inlay hints for clients without custom
    // UI; here they are drawn as after-line decorations (with hover and the walk highlight),
    // so the inlay hints would only repeat them.
    provideInlayHints: () => [],
    executeCommand: async (command, args, next) => {
      const result: unknown = await next(command, args);
      if (command === ServerCommands.showRule && isRecord(result) && typeof result["markdown"] === "string") {
        await ExplainPanel.show({ markdown: result["markdown"] }, "TF Insight: Rule");
      } else if (command === ServerCommands.explainError && isRecord(result)) {
        await ExplainPanel.show(result);
      }
      return result;
    },
  };

  const server = new ServerManager(context, log, python, middleware);
  const session = new SessionController(server, log);
  const annotations = new InlineAnnotations(session);
  const tree = new SessionTree(session, Views.session);
  const status = new StatusBar(server, session);
  const graphDebugger = new GraphDebugger(server, log);
  context.subscriptions.push(server, session, annotations, tree, status, graphDebugger);

  const showStop = async (stop: WalkStop | undefined): Promise<void> => {
    if (!stop) {
      return;
    }
    if (stop.kind === "verdict") {
      const v = session.result?.verdict;
      if (v) {
        const step = session.steps[stop.step];
        if (v.user_frame) {  // the line of yours that did it, beside the explanation
          await (stop.cell !== undefined
            ? openNotebookCell(stop.path, stop.cell, stop.line + 1)
            : openAt(stop.path, stop.line + 1, vscode.ViewColumn.One, false));
        }
        await ExplainPanel.show(
          { explanation: verdictExplanation(v, { user_frame: v.user_frame ?? step?.user_frame ?? null }) },
          `TF Insight: ${verdictText(v)}`,
        );
      }
      return;
    }
    // Your files stay open; library files (Keras/TF source) reuse one preview tab.
    await (stop.cell !== undefined
      ? openNotebookCell(stop.path, stop.cell, stop.line + 1)
      : openAt(stop.path, stop.line + 1, vscode.ViewColumn.One, stop.kind === "library"));
  };

  context.subscriptions.push(
    vscode.commands.registerCommand(Commands.explainGraphModeError, (arg?: unknown) =>
      // From the terminal context menu VS Code passes the terminal (or nothing): prefer its selection.
      explainCommand(server, log, isRecord(arg) && "processId" in arg, arg),
    ),
    vscode.commands.registerCommand(Commands.startGuidedSession, async () => {
      await session.start();
      if (session.running) {
        await vscode.commands.executeCommand(`${Views.session}.focus`);
      }
    }),
    vscode.commands.registerCommand(Commands.stopGuidedSession, () => session.stop()),
    vscode.commands.registerCommand(Commands.nextStep, () => showStop(session.move(1))),
    vscode.commands.registerCommand(Commands.previousStep, () => showStop(session.move(-1))),
    vscode.commands.registerCommand(Commands.revealStep, (index: number) => showStop(session.setPosition(index))),
    vscode.commands.registerCommand(Commands.clearAnnotations, () => { session.clear(); }),
    vscode.commands.registerCommand(Commands.restartServer, () => server.restart()),
    vscode.commands.registerCommand(Commands.showOutput, () => { log.show(); }),
    vscode.commands.registerCommand(Commands.checkWorkspace, () => checkWorkspace(server, log)),
    session.onDidEnd(async (result) => {
      const v = result.verdict;
      if (v) {
        await tree.revealVerdict().catch((err: unknown) => { log.warn(`reveal verdict: ${String(err)}`); });
        const choice = await vscode.window.showInformationMessage(
          `TF Insight: ${verdictText(v)}${v.summary ? ` — ${v.summary}` : ""}`,
          "Show Explanation",
          "Walk Steps",
        );
        if (choice === "Show Explanation") {
          const stops = session.stops();
          await showStop(session.setPosition(stops.length - 1));
        } else if (choice === "Walk Steps") {
          session.position = -1;
          await showStop(session.move(1));
        }
      } else if (result.exception || (result.exit_code ?? 0) !== 0) {
        const exc = result.exception;
        const text = typeof exc === "string" ? exc : exc ? `${exc.type ?? ""}: ${exc.message ?? ""}` : `exit code ${result.exit_code ?? "?"}`;
        void vscode.window.showWarningMessage(`TF Insight: the session ended without a verdict (${text}).`);
      } else {
        void vscode.window.showInformationMessage(`TF Insight: the session finished (${session.steps.length} steps) and found no graph-mode hazard.`);
      }
    }),
  );

  void server.restart();
  return { server, session, graphDebugger };
}

export function deactivate(): void {
  // Disposables in context.subscriptions stop the server.
}
