// Which Python runs the server: the user's setting wins, then the Python extension's active
// interpreter, then `python3`. Pure: the caller gathers the inputs from VS Code.

export type InterpreterSource = "setting" | "python-extension" | "default";

export interface InterpreterChoice {
  /** The command to run: a path or a name looked up on PATH. */
  command: string;
  source: InterpreterSource;
}

export interface InterpreterInputs {
  /** `tfInsight.interpreter` (may be null, empty or contain `${workspaceFolder}`). */
  setting?: string | null;
  /** The Python extension's active interpreter path for the resource, if that extension is installed. */
  pythonExtension?: string | null;
  /** Folder used to expand `${workspaceFolder}` and `~`. */
  workspaceFolder?: string | null;
  homeDir?: string | null;
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
  if (setting) {
    return { command: expandPath(setting, inputs.workspaceFolder, inputs.homeDir), source: "setting" };
  }
  const fromExtension = inputs.pythonExtension?.trim();
  if (fromExtension) {
    return { command: fromExtension, source: "python-extension" };
  }
  return { command: DEFAULT_INTERPRETER, source: "default" };
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
