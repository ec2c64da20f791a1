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

export function run(
  command: string,
  args: string[],
  opts: { cwd: string; timeoutMs?: number; onLine?: (line: string) => void; signal?: AbortSignal },
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
      env: ourPythonEnv({ ...process.env, PYTHONUNBUFFERED: "1", PYTHONIOENCODING: "utf-8" }),
      stdio: ["ignore", "pipe", "pipe"],
      signal: opts.signal,
    });
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      finish({ code: null, stdout, stderr, error: `timed out after ${opts.timeoutMs ?? 0} ms` });
    }, opts.timeoutMs ?? 60_000);
    let partial = "";
    const onData = (chunk: Buffer, isOut: boolean): void => {
      const text = chunk.toString("utf8");
      if (isOut) {
        stdout += text;
      } else {
        stderr += text;
      }
      if (opts.onLine) {
        partial += text;
        const lines = partial.split(/\r?\n/);
        partial = lines.pop() ?? "";
        lines.forEach(opts.onLine);
      }
    };
    child.stdout.on("data", (c: Buffer) => { onData(c, true); });
    child.stderr.on("data", (c: Buffer) => { onData(c, false); });
    child.on("error", (err) => { finish({ code: null, stdout, stderr, error: err.message }); });
    child.on("close", (code) => { finish({ code, stdout, stderr }); });
  });
}
