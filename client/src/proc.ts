// Run a short-lived Python process of ours and collect its output (no shell), in our own folder
// with the environment of `ourPythonEnv`.
import { spawn } from "child_process";
import { ourPythonEnv } from "./core/processEnv";

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
  error?: string;
}

/** `extraEnv`: variables added to the extension host's environment. */
export function run(
  command: string,
  args: string[],
  opts: { cwd: string; timeoutMs?: number; extraEnv?: Record<string, string> },
): Promise<RunResult> {
  return new Promise((resolve) => {
    let stdout = "";
    let stderr = "";
    let settled = false;
    const finish = (r: RunResult): void => {
      if (!settled) {
        settled = true;
        clearTimeout(timer);
        resolve(r);
      }
    };
    const child = spawn(command, args, {
      cwd: opts.cwd,
      env: ourPythonEnv({ ...process.env, PYTHONUNBUFFERED: "1", PYTHONIOENCODING: "utf-8", ...opts.extraEnv }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      finish({ code: null, stdout, stderr, error: `timed out after ${opts.timeoutMs ?? 0} ms` });
    }, opts.timeoutMs ?? 60_000);
    child.stdout.on("data", (c: Buffer) => { stdout += c.toString("utf8"); });
    child.stderr.on("data", (c: Buffer) => { stderr += c.toString("utf8"); });
    child.on("error", (err) => { finish({ code: null, stdout, stderr, error: err.message }); });
    child.on("close", (code) => { finish({ code, stdout, stderr }); });
  });
}
