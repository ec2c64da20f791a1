// TF Insight: Check Workspace: the server checks every Python file and notebook of the
// workspace (with its own progress and Cancel) and publishes their diagnostics; the Problems
// panel shows them.
import * as vscode from "vscode";
import { checkWorkspaceMessage, type CheckWorkspaceResult } from "./core/checkWorkspace";
import { ServerCommands } from "./core/protocol";
import type { ServerManager } from "./server";

export async function checkWorkspace(server: ServerManager, log: vscode.LogOutputChannel): Promise<void> {
  let result: CheckWorkspaceResult;
  try {
    result = await server.execute<CheckWorkspaceResult>(ServerCommands.checkWorkspace, []);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    log.error(`check workspace: ${message}`);
    void vscode.window.showErrorMessage(`TF Insight: ${message}`);
    return;
  }
  if ((result.findings ?? 0) > 0) {
    await vscode.commands.executeCommand("workbench.actions.view.problems");
  }
  void vscode.window.showInformationMessage(checkWorkspaceMessage(result));
}
