// Whether the chosen interpreter can run the server: from the extension's bundle (see
// core/bundle.ts), or, in a development build without one, from its own packages.
import * as fs from "fs";
import * as path from "path";
import { BUNDLE_ENV, checkArgs, parseCheck, type CheckResult } from "./core/bundle";
import { run } from "./proc";

/** `dist/bundled` of the installed extension, when it holds the server's libraries. */
export function bundleFolder(extensionPath: string): string | undefined {
  const folder = path.join(extensionPath, "dist", "bundled");
  return fs.existsSync(path.join(folder, "libs", "tf_insight_server")) ? folder : undefined;
}

/** The variables a process of ours that may use the bundle adds to the environment. */
export function bundleEnv(bundle: string | undefined): Record<string, string> {
  return bundle ? { [BUNDLE_ENV]: bundle } : {};
}

/** `cwd`: a folder of ours (never the workspace: `python -c` imports from its current folder). */
export async function checkInterpreter(python: string, cwd: string, bundle: string | undefined): Promise<CheckResult> {
  const r = await run(python, checkArgs(bundle !== undefined), { cwd, timeoutMs: 30_000, extraEnv: bundleEnv(bundle) });
  const spawnError = r.error && r.code === null ? `could not run ${python}: ${r.error}` : undefined;
  const result = parseCheck(r.stdout, r.code, spawnError);
  if (!result.ok && !result.error) {
    result.error = r.stderr.trim().split("\n").pop();
  }
  return result;
}
