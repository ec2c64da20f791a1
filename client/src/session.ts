// Guided sessions: start/stop through the server, collect streamed steps, keep the walk position.
import * as os from "os";
import * as vscode from "vscode";
import type { LanguageClient } from "vscode-languageclient/node";
import { stepTitle, verdictText, walkStops, type WalkStop } from "./core/annotation";
import { resolveLaunch } from "./core/launch";
import {
  ServerCommands,
  ServerNotifications,
  type SessionEndParams,
  type SessionResult,
  type SessionStep,
  type SessionStepParams,
  type StartSessionArgs,
} from "./core/protocol";
import { CONFIG_SECTION, ContextKeys } from "./ids";
import type { ServerManager } from "./server";

export type SessionState = "idle" | "starting" | "running" | "stopping" | "done" | "failed";

export class SessionController implements vscode.Disposable {
  state: SessionState = "idle";
  sessionId: string | undefined;
  launch: StartSessionArgs | undefined;
  steps: SessionStep[] = [];
  result: SessionResult | undefined;
  error: string | undefined;
  /** Index into `stops()` of the current walk position, -1 before the first Next. */
  position = -1;
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;
  private readonly stepAdded = new vscode.EventEmitter<SessionStep>();
  readonly onDidAddStep = this.stepAdded.event;
  private readonly ended = new vscode.EventEmitter<SessionResult>();
  readonly onDidEnd = this.ended.event;
  private finishProgress: (() => void) | undefined;
  /** Steps that arrived before startSession answered with the session id. */
  private early: SessionStepParams[] = [];
  private earlyEnd: SessionEndParams | undefined;
  private readonly disposables: vscode.Disposable[] = [this.changed, this.stepAdded, this.ended];

  constructor(
    private readonly server: ServerManager,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.disposables.push(server.onDidStartClient((client) => { this.attach(client); }));
    if (server.client) {
      this.attach(server.client);
    }
  }

  private attach(client: LanguageClient): void {
    this.disposables.push(
      client.onNotification(ServerNotifications.sessionStep, (p: SessionStepParams) => { this.onStep(p); }),
      client.onNotification(ServerNotifications.sessionEnd, (p: SessionEndParams) => { this.onEnd(p); }),
    );
  }

  get running(): boolean {
    return this.state === "starting" || this.state === "running" || this.state === "stopping";
  }

  stops(): WalkStop[] {
    return walkStops(this.steps, this.result?.verdict);
  }

  private fire(): void {
    void vscode.commands.executeCommand("setContext", ContextKeys.sessionRunning, this.running);
    void vscode.commands.executeCommand("setContext", ContextKeys.hasSteps, this.steps.length > 0);
    this.changed.fire();
  }

  private onStep(p: SessionStepParams): void {
    if (this.state === "starting" && !this.sessionId) {
      this.early.push(p);
      return;
    }
    if (!p || p.sessionId !== this.sessionId || !p.step) {
      return;
    }
    this.steps.push(p.step);
    this.log.debug(`session step ${this.steps.length}: ${stepTitle(p.step)}`);
    this.stepAdded.fire(p.step);
    this.fire();
  }

  private onEnd(p: SessionEndParams): void {
    if (this.state === "starting" && !this.sessionId) {
      this.earlyEnd = p;
      return;
    }
    if (!p || p.sessionId !== this.sessionId) {
      return;
    }
    this.result = p.result ?? {};
    this.state = "done";
    const v = this.result.verdict;
    this.log.info(
      `session ${p.sessionId} ended: ${this.steps.length} steps, exit ${this.result.exit_code ?? "?"}, verdict ${v ? verdictText(v) : "none"}`,
    );
    this.finishProgress?.();
    this.ended.fire(this.result);
    this.fire();
  }

  /** Resolve the launch from the settings and the active editor. */
  private async resolve(): Promise<StartSessionArgs | undefined> {
    const editor = vscode.window.activeTextEditor;
    // In a notebook, the notebook runs (its code cells in order), not the cell.
    const notebook = vscode.window.activeNotebookEditor?.notebook;
    const docUri = notebook && editor?.document.uri.scheme === "vscode-notebook-cell" ? notebook.uri : editor?.document.uri;
    const folder = (docUri && vscode.workspace.getWorkspaceFolder(docUri)) ?? vscode.workspace.workspaceFolders?.[0];
    const config = vscode.workspace.getConfiguration(`${CONFIG_SECTION}.session`, folder?.uri);
    const python = (this.server.interpreter ?? (await this.server.resolveInterpreter())).command;
    const r = resolveLaunch({
      python,
      activeFile: docUri?.scheme === "file" ? docUri.fsPath : null,
      activeLanguage: editor?.document.languageId ?? null,
      workspaceFolder: folder?.uri.fsPath ?? null,
      homeDir: os.homedir(),
      script: config.get<string | null>("script"),
      args: config.get("args"),
      cwd: config.get<string | null>("cwd"),
      env: config.get("env"),
    });
    if (!r.ok) {
      void vscode.window.showWarningMessage(`TF Insight: ${r.reason}`);
      return undefined;
    }
    if (editor?.document.isDirty && editor.document.uri.fsPath === r.launch.script) {
      await editor.document.save();
    }
    if (notebook?.isDirty && notebook.uri.fsPath === r.launch.script) {
      await notebook.save();
    }
    return r.launch;
  }

  async start(): Promise<void> {
    if (!vscode.workspace.isTrusted) {
      void vscode.window.showWarningMessage(
        "TF Insight: guided sessions run your script, so they are disabled in an untrusted workspace. Only static analysis runs here.",
        "Manage Workspace Trust",
      ).then((c) => {
        if (c) {
          void vscode.commands.executeCommand("workbench.trust.manage");
        }
      });
      return;
    }
    if (this.running) {
      void vscode.window.showInformationMessage("TF Insight: a guided session is already running.");
      return;
    }
    const launch = await this.resolve();
    if (!launch) {
      return;
    }
    this.reset();
    this.launch = launch;
    this.state = "starting";
    this.fire();
    this.log.info(`Starting guided session: ${launch.python} ${launch.script} ${launch.args.join(" ")} (cwd ${launch.cwd})`);
    const name = vscode.workspace.asRelativePath(launch.script);
    void vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `TF Insight: guided session on ${name}`, cancellable: true },
      (progress, token) =>
        new Promise<void>((resolve) => {
          const sub = this.onDidAddStep((step) => {
            progress.report({ message: `step ${this.steps.length}: ${stepTitle(step)}` });
          });
          this.finishProgress = () => {
            this.finishProgress = undefined;
            sub.dispose();
            resolve();
          };
          token.onCancellationRequested(() => { void this.stop(); });
          progress.report({ message: "starting…" });
        }),
    );
    try {
      const reply = await this.server.execute<{ sessionId?: string | number } | null>(ServerCommands.startSession, [launch]);
      if (!reply?.sessionId) {
        throw new Error("the server did not return a session id");
      }
      this.sessionId = String(reply.sessionId);
      this.state = "running";
      this.log.info(`session ${this.sessionId} started`);
      const early = this.early;
      this.early = [];
      early.forEach((p) => { this.onStep(p); });
      const end = this.earlyEnd;
      this.earlyEnd = undefined;
      if (end) {
        this.onEnd(end);
      }
      this.fire();
    } catch (err) {
      this.state = "failed";
      this.error = err instanceof Error ? err.message : String(err);
      this.finishProgress?.();
      this.fire();
      void vscode.window.showErrorMessage(`TF Insight: could not start the guided session: ${this.error}`);
    }
  }

  async stop(): Promise<void> {
    if (!this.running || !this.sessionId) {
      if (this.state === "starting") {
        this.state = "failed";
        this.error = "cancelled";
        this.finishProgress?.();
        this.fire();
      }
      return;
    }
    this.state = "stopping";
    this.fire();
    try {
      await this.server.execute(ServerCommands.stopSession, [{ sessionId: this.sessionId }]);
    } catch (err) {
      this.log.warn(`stopSession: ${String(err)}`);
    }
    // The server answers with sessionEnd; if it never comes, don't leave the UI spinning.
    setTimeout(() => {
      if (this.state === "stopping") {
        this.state = "done";
        this.result = this.result ?? { exception: "stopped", verdict: null };
        this.finishProgress?.();
        this.fire();
      }
    }, 5000);
  }

  reset(): void {
    this.sessionId = undefined;
    this.launch = undefined;
    this.steps = [];
    this.result = undefined;
    this.error = undefined;
    this.position = -1;
    this.early = [];
    this.earlyEnd = undefined;
    this.state = "idle";
  }

  clear(): void {
    if (this.running) {
      void this.stop();
    }
    this.reset();
    this.fire();
  }

  /** Move the walk position by `delta` and return the new stop (or undefined at the ends). */
  move(delta: number): WalkStop | undefined {
    const stops = this.stops();
    if (stops.length === 0) {
      return undefined;
    }
    this.position = Math.min(Math.max(this.position + delta, 0), stops.length - 1);
    this.fire();
    return stops[this.position];
  }

  setPosition(index: number): WalkStop | undefined {
    const stops = this.stops();
    if (index < 0 || index >= stops.length) {
      return undefined;
    }
    this.position = index;
    this.fire();
    return stops[index];
  }

  dispose(): void {
    this.disposables.forEach((d) => { d.dispose(); });
  }
}
