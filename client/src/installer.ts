// Check that the interpreter has the Python side, and install it from the wheel bundled in the
// .vsix (`dist/bundled/*.whl`) on the user's confirmation, with progress.
import * as fs from "fs";
import * as path from "path";
import * as vscode from "vscode";
import { checkArgs, parseCheck, pickWheel, pipFailureAdvice, pipInstallArgs, pipProgressLine, type CheckResult } from "./core/install";
import { run } from "./proc";

export function bundledWheel(extensionPath: string): string | undefined {
  const dir = path.join(extensionPath, "dist", "bundled");
  let names: string[] = [];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return undefined;
  }
  const wheel = pickWheel(names);
  return wheel ? path.join(dir, wheel) : undefined;
}

/** `cwd`: a folder of ours (never the workspace: `python -c` imports from its current folder). */
export async function checkInterpreter(python: string, cwd: string): Promise<CheckResult> {
  const r = await run(python, checkArgs(), { cwd, timeoutMs: 30_000 });
  const spawnError = r.error && r.code === null ? `could not run ${python}: ${r.error}` : undefined;
  const result = parseCheck(r.stdout, r.code, spawnError);
  if (!result.ok && !result.error) {
    result.error = r.stderr.trim().split("\n").pop();
  }
  return result;
}

/** Install into `python` with a progress notification. Returns true on success. */
export async function installInto(python: string, extensionPath: string, cwd: string, log: vscode.LogOutputChannel): Promise<boolean> {
  if (!vscode.workspace.isTrusted) {
    void vscode.window.showWarningMessage("TF Insight: installing packages is disabled in an untrusted workspace. Trust the workspace to install them.");
    return false;
  }
  const wheel = bundledWheel(extensionPath);
  if (!wheel) {
    void vscode.window.showErrorMessage(
      `TF Insight: this build of the extension has no bundled Python wheel (dist/bundled). Install the packages by hand: ${python} -m pip install "tf-insight[server,session]" from the TF Insight sources.`,
    );
    return false;
  }
  const args = pipInstallArgs(wheel);
  log.info(`Installing: ${python} ${args.join(" ")}`);
  return vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: "TF Insight: installing the Python packages", cancellable: true },
    async (progress, token) => {
      const abort = new AbortController();
      token.onCancellationRequested(() => { abort.abort(); });
      progress.report({ message: `into ${python}` });
      const r = await run(python, args, {
        cwd,
        timeoutMs: 15 * 60_000,
        signal: abort.signal,
        onLine: (line) => {
          log.info(`pip: ${line}`);
          const shown = pipProgressLine(line);
          if (shown) {
            progress.report({ message: shown });
          }
        },
      });
      if (r.code === 0) {
        log.info("pip install finished");
        return true;
      }
      const output = `${r.stdout}\n${r.stderr}\n${r.error ?? ""}`;
      log.error(`pip install failed (exit ${r.code ?? "?"}): ${r.stderr.trim().split("\n").slice(-5).join(" | ")}`);
      if (token.isCancellationRequested) {
        void vscode.window.showWarningMessage("TF Insight: install cancelled.");
        return false;
      }
      const choice = await vscode.window.showErrorMessage(
        `TF Insight: pip install into ${python} failed. ${pipFailureAdvice(output)}`,
        "Show Log",
      );
      if (choice === "Show Log") {
        log.show();
      }
      return false;
    },
  );
}
