// Resolve what a guided session runs: the configured launch (tfInsight.session.script/args/
// cwd/env) or the active Python file. Pure; relative paths resolve against the workspace folder.
import * as path from "path";
import type { StartSessionArgs } from "./protocol";
import { expandPath } from "./interpreter";

export interface LaunchInputs {
  python: string;
  activeFile?: string | null;
  activeLanguage?: string | null;
  workspaceFolder?: string | null;
  homeDir?: string | null;
  script?: string | null;
  args?: unknown;
  cwd?: string | null;
  env?: unknown;
}

export type LaunchResolution = { ok: true; launch: StartSessionArgs } | { ok: false; reason: string };

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

function envMap(value: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (value && typeof value === "object" && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (typeof v === "string" || typeof v === "number" || typeof v === "boolean") {
        out[k] = String(v);
      }
    }
  }
  return out;
}

export function resolveLaunch(i: LaunchInputs): LaunchResolution {
  const ws = i.workspaceFolder ?? null;
  let script: string | undefined;
  if (i.script && i.script.trim()) {
    script = expandPath(i.script, ws, i.homeDir);
    if (!path.isAbsolute(script)) {
      if (!ws) {
        return { ok: false, reason: `tfInsight.session.script is relative (${i.script}) but no folder is open.` };
      }
      script = path.join(ws, script);
    }
  } else if (i.activeFile) {
    if (i.activeLanguage && i.activeLanguage !== "python") {
      return { ok: false, reason: "The active file is not a Python file. Open the script to run, or set tfInsight.session.script." };
    }
    script = i.activeFile;
  }
  if (!script) {
    return { ok: false, reason: "No script to run: open a Python file or set tfInsight.session.script." };
  }
  let cwd = i.cwd && i.cwd.trim() ? expandPath(i.cwd, ws, i.homeDir) : (ws ?? path.dirname(script));
  if (!path.isAbsolute(cwd)) {
    cwd = path.join(ws ?? path.dirname(script), cwd);
  }
  return {
    ok: true,
    launch: {
      script,
      args: strings(i.args),
      python: i.python,
      cwd,
      env: envMap(i.env),
    },
  };
}
