// Owns the language client: chooses the interpreter, checks that it can run the server from the
// extension's bundle (core/bundle.ts: nothing is installed into it), starts the server over stdio,
// and restarts it when the interpreter or the interpreter setting changes.
import * as fs from "fs";
import * as os from "os";
import * as vscode from "vscode";
import {
  DidChangeConfigurationNotification,
  ExecuteCommandRequest,
  LanguageClient,
  State,
  type LanguageClientOptions,
  type ServerOptions,
} from "vscode-languageclient/node";
import { serverArgs, unusableAdvice } from "./core/bundle";
import { chooseInterpreter, describeInterpreter, type InterpreterChoice } from "./core/interpreter";
import { ourPythonEnv } from "./core/processEnv";
import { ServerCommands } from "./core/protocol";
import { buildServerSettings, type ServerSettings } from "./core/settings";
import { CLIENT_ID, CONFIG_SECTION } from "./ids";
import { bundleEnv, bundleFolder, checkInterpreter } from "./interpreterCheck";
import { PythonExtensionBridge } from "./python";

export type ServerState = "stopped" | "starting" | "running" | "unusable-interpreter" | "failed";

export class ServerManager implements vscode.Disposable {
  client: LanguageClient | undefined;
  interpreter: InterpreterChoice | undefined;
  state: ServerState = "stopped";
  stateDetail = "";
  private readonly stateChanged = new vscode.EventEmitter<ServerState>();
  readonly onDidChangeState = this.stateChanged.event;
  private readonly clientStarted = new vscode.EventEmitter<LanguageClient>();
  /** Fires after each (re)start, so features can attach notification handlers. */
  readonly onDidStartClient = this.clientStarted.event;
  private readonly warnedUnusable = new Set<string>();
  private readonly warnedRefused = new Set<string>();
  private restarting: Promise<void> | undefined;
  private pendingRestart = false;
  private readonly disposables: vscode.Disposable[] = [this.stateChanged, this.clientStarted];

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly log: vscode.LogOutputChannel,
    private readonly python: PythonExtensionBridge,
    private readonly middleware: LanguageClientOptions["middleware"],
  ) {
    this.disposables.push(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (!e.affectsConfiguration(CONFIG_SECTION)) {
          return;
        }
        if (e.affectsConfiguration(`${CONFIG_SECTION}.interpreter`)) {
          this.log.info("tfInsight.interpreter changed: restarting the server");
          void this.restart();
        } else {
          void this.sendSettings();
        }
      }),
      this.python.onDidChangeInterpreter(() => {
        if (!this.interpreterSetting()) {
          this.log.info("The Python extension's interpreter changed: restarting the server");
          void this.restart();
        }
      }),
      vscode.workspace.onDidGrantWorkspaceTrust(() => {
        this.log.info("Workspace trusted: restarting the server with the full settings");
        void this.restart();
      }),
    );
  }

  private setState(state: ServerState, detail = ""): void {
    this.state = state;
    this.stateDetail = detail;
    this.stateChanged.fire(state);
  }

  private interpreterSetting(): string | null {
    const value = vscode.workspace.getConfiguration(CONFIG_SECTION).get<string | null>("interpreter");
    return typeof value === "string" && value.trim() ? value : null;
  }

  private workspaceFolder(): string | undefined {
    return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  }

  async resolveInterpreter(): Promise<InterpreterChoice> {
    const resource = vscode.window.activeTextEditor?.document.uri ?? vscode.workspace.workspaceFolders?.[0]?.uri;
    const choice = chooseInterpreter({
      setting: this.interpreterSetting(),
      pythonExtension: await this.python.activeInterpreter(resource),
      workspaceFolder: this.workspaceFolder() ?? null,
      homeDir: os.homedir(),
      trusted: vscode.workspace.isTrusted,
      workspaceFolders: (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath),
    });
    if (choice.refused && !this.warnedRefused.has(choice.refused)) {
      this.warnedRefused.add(choice.refused);
      const message = `TF Insight: not running ${choice.refused}: it lies inside this workspace, which is not trusted (Restricted Mode). Using ${choice.command} instead; trust the workspace to use it.`;
      this.log.warn(message);
      void vscode.window.showWarningMessage(message);
    }
    return choice;
  }

  /** A folder of ours for the processes we start (the workspace would shadow modules). */
  private ownFolder(): string {
    const folder = this.context.globalStorageUri.fsPath;
    fs.mkdirSync(folder, { recursive: true });
    return folder;
  }

  settings(): ServerSettings {
    const config = vscode.workspace.getConfiguration(CONFIG_SECTION);
    return buildServerSettings((key) => config.get(key), this.interpreter?.command ?? this.interpreterSetting(), vscode.workspace.isTrusted);
  }

  async sendSettings(): Promise<void> {
    if (this.client?.state === State.Running) {
      await this.client.sendNotification(DidChangeConfigurationNotification.type, { settings: this.settings() });
    }
  }

  /** Start (or restart) the server; concurrent calls collapse into one more restart. */
  restart(): Promise<void> {
    if (this.restarting) {
      this.pendingRestart = true;
      return this.restarting;
    }
    this.restarting = (async () => {
      do {
        this.pendingRestart = false;
        try {
          await this.stopClient();
          await this.startClient();
        } catch (err) {
          this.log.error(`Server start failed: ${String(err)}`);
          this.setState("failed", err instanceof Error ? err.message : String(err));
          void this.reportStartFailure();
        }
      } while (this.pendingRestart);
    })().finally(() => {
      this.restarting = undefined;
    });
    return this.restarting;
  }

  private async stopClient(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client) {
      try {
        await client.stop(5000);
      } catch (err) {
        this.log.warn(`Stopping the server: ${String(err)}`);
      }
      await client.dispose().catch(() => undefined);
    }
    this.setState("stopped");
  }

  private async startClient(): Promise<void> {
    this.setState("starting");
    this.interpreter = await this.resolveInterpreter();
    const python = this.interpreter.command;
    this.log.info(`Interpreter: ${describeInterpreter(this.interpreter)}`);
    const bundle = bundleFolder(this.context.extensionPath);
    const check = await checkInterpreter(python, this.ownFolder(), bundle);
    if (!check.ok) {
      this.log.warn(`Interpreter ${python} cannot run the server: ${check.error ?? "unknown error"}`);
      this.setState("unusable-interpreter", check.error ?? "");
      void this.reportUnusable(python, unusableAdvice(python, check.error ?? "unknown error", bundle !== undefined));
      return;
    }
    this.log.info(`tf-insight ${check.version ?? "?"} ${bundle ? `from ${bundle}` : "(development build: the interpreter's own packages)"}, run by ${check.executable ?? python} (Python ${check.python ?? "?"})`);
    const serverOptions: ServerOptions = {
      command: python,
      args: serverArgs(bundle !== undefined),
      // stdio without `transport`: TransportKind.stdio would append `--stdio`. Never the
      // workspace as the current folder: `-m` and `-c` would import from it first.
      options: { cwd: this.ownFolder(), env: ourPythonEnv({ ...process.env, PYTHONUNBUFFERED: "1", ...bundleEnv(bundle) }) },
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [
        { scheme: "file", language: "python" },
        { scheme: "untitled", language: "python" },
        { scheme: "vscode-notebook-cell", language: "python" },
        { notebook: "*", language: "python" },
      ],
      outputChannel: this.log,
      initializationOptions: this.settings(),
      middleware: this.middleware,
      diagnosticCollectionName: "tf-insight",
    };
    const client = new LanguageClient(CLIENT_ID, "TF Insight", serverOptions, clientOptions);
    client.onDidChangeState((e) => {
      if (this.client !== client) {
        return;
      }
      if (e.newState === State.Running) {
        this.setState("running");
      } else if (e.newState === State.Starting) {
        this.setState("starting");
      } else if (this.state === "running") {
        this.setState("stopped", "the server stopped");
      }
    });
    this.client = client;
    await client.start();
    this.clientStarted.fire(client);
  }

  private readonly reportedFailure = new Set<string>();

  private async reportStartFailure(): Promise<void> {
    const python = this.interpreter?.command ?? "?";
    if (this.reportedFailure.has(python)) {
      return;
    }
    this.reportedFailure.add(python);
    const choice = await vscode.window.showErrorMessage(
      `TF Insight: the server (run by ${python}) failed to start: ${this.stateDetail}`,
      "Show Log",
      "Restart Server",
    );
    if (choice === "Show Log") {
      this.log.show();
    } else if (choice === "Restart Server") {
      await this.restart();
    }
  }

  private async reportUnusable(python: string, advice: string): Promise<void> {
    if (this.warnedUnusable.has(python)) {
      return;
    }
    this.warnedUnusable.add(python);
    const choice = await vscode.window.showWarningMessage(`TF Insight: ${advice}`, "Choose Interpreter", "Show Log");
    if (choice === "Choose Interpreter") {
      await vscode.commands.executeCommand("workbench.action.openSettings", `${CONFIG_SECTION}.interpreter`);
    } else if (choice === "Show Log") {
      this.log.show();
    }
  }

  /** Send `workspace/executeCommand` to the server. */
  async execute<T>(command: (typeof ServerCommands)[keyof typeof ServerCommands], args: unknown[], token?: vscode.CancellationToken): Promise<T> {
    const client = this.client;
    if (!client || client.state !== State.Running) {
      throw new Error(this.notRunningReason());
    }
    return (await client.sendRequest(ExecuteCommandRequest.type, { command, arguments: args }, token)) as T;
  }

  notRunningReason(): string {
    switch (this.state) {
      case "unusable-interpreter":
        return `the TF Insight server is not running: the interpreter cannot run it (${this.stateDetail}). Set tfInsight.interpreter.`;
      case "failed":
        return `the TF Insight server failed to start: ${this.stateDetail}`;
      case "starting":
        return "the TF Insight server is still starting; try again in a moment.";
      default:
        return "the TF Insight server is not running.";
    }
  }

  async stop(): Promise<void> {
    await this.stopClient();
  }

  dispose(): void {
    void this.stopClient();
    this.disposables.forEach((d) => { d.dispose(); });
  }
}
