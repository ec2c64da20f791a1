// How the extension starts Python processes of its own (the server, the interpreter check, pip):
// in a folder of ours, never the workspace, with an environment in which nothing in the
// workspace or the current folder can stand in for a module. Python puts the current folder
// first on sys.path for `python -m` and `python -c`, and resolves relative PYTHONPATH entries
// against it (see tf_insight/isolation.py, which does the same for the server's own children).
import * as fs from "fs";
import * as path from "path";

const REMOVED = ["PYTHONSTARTUP", "PYTHONINSPECT"];

/** `env` for a Python process of ours: safe path mode, no relative or empty PYTHONPATH entry. */
export function ourPythonEnv(env: NodeJS.ProcessEnv, delimiter: string = path.delimiter): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = Object.fromEntries(
    Object.entries(env).filter(([name]) => !REMOVED.includes(name) && name !== "PYTHONPATH"),
  );
  out.PYTHONSAFEPATH = "1";
  const kept = (env.PYTHONPATH ?? "").split(delimiter).filter((entry) => entry !== "" && path.isAbsolute(entry));
  if (kept.length) {
    out.PYTHONPATH = kept.join(delimiter);
  }
  return out;
}

/** The real path, links resolved as far as the path exists (a missing file in a linked folder
 * is still in that folder). */
function real(p: string): string {
  const absolute = path.resolve(p);
  try {
    return fs.realpathSync(absolute);
  } catch {
    const parent = path.dirname(absolute);
    return parent === absolute ? absolute : path.join(real(parent), path.basename(absolute));
  }
}

/** Whether `file` is one of `folders` or lies below one (symlinks resolved). */
export function isInside(file: string, folders: readonly string[]): boolean {
  const target = real(file);
  return folders.some((folder) => {
    const base = real(folder);
    const rel = path.relative(base, target);
    return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
  });
}
