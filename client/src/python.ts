// The Python extension's active interpreter, when that extension is installed.
import * as vscode from "vscode";
import { PythonExtension } from "@vscode/python-extension";
import { PYTHON_EXTENSION_ID } from "./ids";

export class PythonExtensionBridge implements vscode.Disposable {
  private api: PythonExtension | undefined;
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeInterpreter = this.changed.event;
  private readonly disposables: vscode.Disposable[] = [this.changed];

  constructor(private readonly log: vscode.LogOutputChannel) {}

  /** True if the Python extension is installed (whether or not it is active yet). */
  static installed(): boolean {
    return vscode.extensions.getExtension(PYTHON_EXTENSION_ID) !== undefined;
  }

  async activeInterpreter(resource?: vscode.Uri): Promise<string | undefined> {
    if (!PythonExtensionBridge.installed()) {
      return undefined;
    }
    try {
      if (!this.api) {
        this.api = await PythonExtension.api();
        this.disposables.push(this.api.environments.onDidChangeActiveEnvironmentPath(() => { this.changed.fire(); }));
      }
      const envPath = this.api.environments.getActiveEnvironmentPath(resource);
      const resolved = await this.api.environments.resolveEnvironment(envPath);
      return resolved?.executable.uri?.fsPath ?? envPath.path;
    } catch (err) {
      this.log.warn(`Python extension did not give an interpreter: ${String(err)}`);
      return undefined;
    }
  }

  dispose(): void {
    this.disposables.forEach((d) => { d.dispose(); });
  }
}
