// Breakpoints that stop inside graph code (issue 26): the `tf-insight` debug type. The server
// builds the configuration (tfInsight.debugConfiguration: debugpy's adapter, and the launch
// arguments that run the script under tf_insight.debug); VS Code's own debugger runs it, with
// the breakpoints set in the gutter. At each stop this file asks the debuggee what TensorFlow
// is doing there (`__tf_insight_stop__()`) and shows it after the stopped line, in its hover
// and in the Debug Console.
import * as os from "os";
import * as vscode from "vscode";
import { resolveLaunch } from "./core/launch";
import { ServerCommands } from "./core/protocol";
import { Colors, Commands, DEBUG_TYPE } from "./ids";
import type { ServerManager } from "./server";

interface DebugConfigurationAnswer {
  /** Our launcher of debugpy's adapter (it listens for no other client); `env` is added. */
  adapter: { command: string; args: string[]; cwd: string; env: Record<string, string> };
  launch: Record<string, unknown>;
}

/** What `__tf_insight_stop__()` answers (tf_insight/session/debuggee/stops.py). */
interface StopAnnotations {
  frame: { path: string; line: number; function: string } | null;
  mode: string;
  summary: string;
  text: string;
}

const EAGER_NOTE =
  "Debugging eagerly: breakpoints stop on every call and element with real values, but errors " +
  "that happen only in graph mode (the custom_gradient keyword error, for one) will not.";

export class GraphDebugger implements vscode.DebugConfigurationProvider, vscode.DebugAdapterDescriptorFactory, vscode.Disposable {
  private readonly stopType = vscode.window.createTextEditorDecorationType({
    after: { margin: "0 0 0 2em", color: new vscode.ThemeColor(Colors.annotationForeground), fontStyle: "italic" },
    isWholeLine: true,
  });
  private shown: { path: string; line: number; annotations: StopAnnotations } | undefined;
  private readonly disposables: vscode.Disposable[] = [this.stopType];

  constructor(private readonly server: ServerManager, private readonly log: vscode.LogOutputChannel) {
    this.disposables.push(
      vscode.debug.registerDebugConfigurationProvider(DEBUG_TYPE, this),
      vscode.debug.registerDebugAdapterDescriptorFactory(DEBUG_TYPE, this),
      vscode.debug.onDidChangeActiveStackItem((item) => { void this.annotate(item); }),
      vscode.debug.onDidStartDebugSession((session) => { this.offerGraphMode(session); }),
      vscode.debug.onDidTerminateDebugSession(() => { this.show(undefined); }),
      vscode.window.onDidChangeVisibleTextEditors(() => { this.render(); }),
      vscode.commands.registerCommand(Commands.debugGraphCode, () => this.debugActiveFile(false)),
      vscode.commands.registerCommand(Commands.debugEagerly, () => this.debugActiveFile(true)),
    );
  }

  /** The annotations shown at the current stop (for tests). */
  get current(): StopAnnotations | undefined {
    return this.shown?.annotations;
  }

  provideDebugConfigurations(): vscode.DebugConfiguration[] {
    return [
      { type: DEBUG_TYPE, request: "launch", name: "TF Insight: Debug Graph Code", program: "${file}" },
      { type: DEBUG_TYPE, request: "launch", name: "TF Insight: Debug Eagerly", program: "${file}", eager: true },
    ];
  }

  resolveDebugConfiguration(_folder: vscode.WorkspaceFolder | undefined, config: vscode.DebugConfiguration): vscode.DebugConfiguration | undefined {
    if (!vscode.workspace.isTrusted) {
      void vscode.window.showErrorMessage("TF Insight: debugging runs your script, so it is off in an untrusted workspace. Trust the workspace to debug.");
      return undefined;
    }
    if (!config.type && !config.request && !config.name) {  // F5 with no launch.json
      return { type: DEBUG_TYPE, request: "launch", name: "TF Insight: Debug Graph Code", program: "${file}" };
    }
    return config;
  }

  async resolveDebugConfigurationWithSubstitutedVariables(folder: vscode.WorkspaceFolder | undefined, config: vscode.DebugConfiguration): Promise<vscode.DebugConfiguration | undefined> {
    const resolved = resolveLaunch({
      python: typeof config["python"] === "string" ? config["python"] : (this.server.interpreter?.command ?? "python3"),
      script: typeof config["program"] === "string" ? config["program"] : null,
      args: config["args"],
      cwd: typeof config["cwd"] === "string" ? config["cwd"] : null,
      env: config["env"],
      workspaceFolder: folder?.uri.fsPath ?? null,
      homeDir: os.homedir(),
    });
    if (!resolved.ok) {
      void vscode.window.showErrorMessage(`TF Insight: ${resolved.reason}`);
      return undefined;
    }
    try {
      const answer = await this.server.execute<DebugConfigurationAnswer>(
        ServerCommands.debugConfiguration, [{ ...resolved.launch, eager: config["eager"] === true }]);
      this.log.info(`Debugging ${resolved.launch.script}${config["eager"] === true ? " eagerly" : ""} with ${resolved.launch.python}`);
      return { ...answer.launch, type: DEBUG_TYPE, name: config.name, request: "launch", tfInsightAdapter: answer.adapter, eager: config["eager"] === true };
    } catch (err) {
      void vscode.window.showErrorMessage(`TF Insight: cannot debug ${resolved.launch.script}: ${err instanceof Error ? err.message : String(err)}`);
      return undefined;
    }
  }

  createDebugAdapterDescriptor(session: vscode.DebugSession): vscode.DebugAdapterDescriptor {
    const adapter = session.configuration["tfInsightAdapter"] as DebugConfigurationAnswer["adapter"];
    return new vscode.DebugAdapterExecutable(adapter.command, adapter.args, { cwd: adapter.cwd, env: adapter.env });
  }

  private async debugActiveFile(eager: boolean): Promise<void> {
    const editor = vscode.window.activeTextEditor;
    if (!editor || editor.document.languageId !== "python") {
      void vscode.window.showErrorMessage("TF Insight: open the Python script to debug.");
      return;
    }
    await vscode.debug.startDebugging(vscode.workspace.getWorkspaceFolder(editor.document.uri), {
      type: DEBUG_TYPE, request: "launch", program: editor.document.uri.fsPath, eager,
      name: eager ? "TF Insight: Debug Eagerly" : "TF Insight: Debug Graph Code",
    });
  }

  private offerGraphMode(session: vscode.DebugSession): void {
    if (session.type !== DEBUG_TYPE || session.configuration["eager"] !== true) {
      return;
    }
    void vscode.window.showInformationMessage(EAGER_NOTE, "Debug in Graph Mode").then(async (choice) => {
      if (choice) {
        await vscode.debug.stopDebugging(session);
        await vscode.debug.startDebugging(session.workspaceFolder, { ...session.configuration, eager: false, name: "TF Insight: Debug Graph Code" });
      }
    });
  }

  private async annotate(item: vscode.DebugThread | vscode.DebugStackFrame | undefined): Promise<void> {
    if (!(item instanceof vscode.DebugStackFrame) || item.session.type !== DEBUG_TYPE) {
      this.show(undefined);
      return;
    }
    try {
      const answer = (await item.session.customRequest("evaluate", {
        expression: "__tf_insight_stop__()", frameId: item.frameId, context: "clipboard",
      })) as { result?: string };
      const annotations = JSON.parse(answer.result ?? "null") as StopAnnotations | null;
      if (annotations?.frame) {
        this.show(annotations);
        vscode.debug.activeDebugConsole.appendLine(`TF Insight at ${annotations.frame.function}:${annotations.frame.line}\n${annotations.text}`);
      }
    } catch (err) {  // a frame the helper cannot see (the program not started under debug_main)
      this.log.warn(`no TF Insight annotations for this stop: ${String(err)}`);
      this.show(undefined);
    }
  }

  private show(annotations: StopAnnotations | undefined): void {
    this.shown = annotations?.frame ? { path: annotations.frame.path, line: annotations.frame.line - 1, annotations } : undefined;
    this.render();
  }

  private render(): void {
    for (const editor of vscode.window.visibleTextEditors) {
      const shown = this.shown;
      if (!shown || editor.document.uri.fsPath !== shown.path) {
        editor.setDecorations(this.stopType, []);
        continue;
      }
      const line = editor.document.lineAt(Math.min(shown.line, editor.document.lineCount - 1));
      editor.setDecorations(this.stopType, [{
        range: line.range,
        hoverMessage: new vscode.MarkdownString().appendCodeblock(shown.annotations.text, "text"),
        renderOptions: { after: { contentText: `TF Insight: ${shown.annotations.summary}` } },
      }]);
    }
  }

  dispose(): void {
    this.disposables.forEach((d) => { d.dispose(); });
  }
}
