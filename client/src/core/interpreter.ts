// Which Python runs the server: the user's setting wins, then the Python extension's active
// interpreter, then `python3`; in an untrusted workspace, never one inside the workspace. Pure
// but for resolving symlinks: the caller gathers the inputs from VS Code.
import * as path from "path";
import { isInside } from "./processEnv";

export type InterpreterSource = "setting" | "python-extension" | "default";

export interface InterpreterChoice {
  /** The command to run: a path or a name looked up on PATH. */
  command: string;
  source: InterpreterSource;
  /** An interpreter inside the (untrusted) workspace that was not used, to say so once. */
  refused?: string;
}

export interface InterpreterInputs {
  /** `tfInsight.interpreter` (may be null, empty or contain `${workspaceFolder}`). */
  setting?: string | null;
  /** The Python extension's active interpreter path for the resource, if that extension is installed. */
  pythonExtension?: string | null;
  /** Folder used to expand `${workspaceFolder}` and `~`. */
  workspaceFolder?: string | null;
  homeDir?: string | null;
  /** Workspace trust. Untrusted: no program inside `workspaceFolders` is ever run (a cloned
   * repository could ship `.venv/bin/python` as anything). */
  trusted?: boolean;
  workspaceFolders?: readonly string[];
}

export const DEFAULT_INTERPRETER = "python3";

/** Expand `${workspaceFolder}`, `${userHome}` and a leading `~` in a path setting. */
export function expandPath(value: string, workspaceFolder?: string | null, homeDir?: string | null): string {
  let out = value.trim();
  if (workspaceFolder) {
    out = out.split("${workspaceFolder}").join(workspaceFolder);
  }
  if (homeDir) {
    out = out.split("${userHome}").join(homeDir);
    if (out === "~" || out.startsWith("~/")) {
      out = homeDir + out.slice(1);
    }
  }
  return out;
}

export function chooseInterpreter(inputs: InterpreterInputs): InterpreterChoice {
  const setting = inputs.setting?.trim();
  const candidates: InterpreterChoice[] = [];
  if (setting) {
    candidates.push({ command: expandPath(setting, inputs.workspaceFolder, inputs.homeDir), source: "setting" });
  }
  const fromExtension = inputs.pythonExtension?.trim();
  if (fromExtension) {
    candidates.push({ command: fromExtension, source: "python-extension" });
  }
  let refused: string | undefined;
  for (const candidate of candidates) {
    const inWorkspace = path.isAbsolute(candidate.command) && isInside(candidate.command, inputs.workspaceFolders ?? []);
    if (inputs.trusted === false && inWorkspace) {
      refused ??= candidate.command;
      continue;
    }
    return refused ? { ...candidate, refused } : candidate;
  }
  return refused ? { command: DEFAULT_INTERPRETER, source: "default", refused } : { command: DEFAULT_INTERPRETER, source: "default" };
}

export function describeInterpreter(choice: InterpreterChoice): string {
  switch (choice.source) {
    case "setting":
      return `${choice.command} (from the tfInsight.interpreter setting)`;
    case "python-extension":
      return `${choice.command} (the Python extension's active interpreter)`;
    case "default":
      return `${choice.command} (default; set tfInsight.interpreter or install the Python extension to choose another)`;
  }
}
