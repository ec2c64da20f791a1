// How the server runs: from the extension's own bundle, never from packages installed into the
// user's interpreter. The .vsix ships `dist/bundled/libs/` (TF Insight, pygls, lsprotocol, jedi
// and their dependencies, pure Python) and `dist/bundled/debugpy/`. The chosen interpreter runs
// the server with `libs/` first on the server's own sys.path (a launcher given to `-c`, not
// PYTHONPATH: the user's script must not see our libraries), and `TF_INSIGHT_BUNDLE` tells the
// server where the bundle is (tf_insight/isolation.py: the bundled debugpy for sessions).
// A development build without `libs/` runs the interpreter's own installed packages.

export const BUNDLE_ENV = "TF_INSIGHT_BUNDLE";
export const MIN_PYTHON = [3, 10] as const;

/** Python statements that put the bundle's libraries first on sys.path (nothing without one). */
function useBundle(bundled: boolean): string[] {
  return bundled ? ["import os, sys", `sys.path.insert(0, os.path.join(os.environ["${BUNDLE_ENV}"], "libs"))`] : [];
}

/** Args for `<python> …` that start the language server over stdio. */
export function serverArgs(bundled: boolean): string[] {
  if (!bundled) {
    return ["-m", "tf_insight_server"];
  }
  return ["-c", [...useBundle(true), "from tf_insight_server.__main__ import main", "sys.exit(main())"].join("\n")];
}

/** Args for `<python> …` that print a JSON line saying whether it can run the server. */
export function checkArgs(bundled: boolean): string[] {
  const code = [
    "import json, sys",
    "info = {'python': sys.version.split()[0], 'executable': sys.executable}",
    `if sys.version_info < (${MIN_PYTHON.join(", ")}):`,
    `    info['ok'] = False; info['error'] = 'Python ${MIN_PYTHON.join(".")} or newer is needed, this is ' + info['python']`,
    "    print(json.dumps(info)); sys.exit(0)",
    ...useBundle(bundled),
    "try:",
    "    import tf_insight_server, tf_insight",
    "    info['version'] = tf_insight.__version__",
    "    info['ok'] = True",
    "except Exception as e:",
    "    info['ok'] = False; info['error'] = f'{type(e).__name__}: {e}'",
    "print(json.dumps(info))",
  ].join("\n");
  return ["-c", code];
}

export interface CheckResult {
  ok: boolean;
  python?: string;
  executable?: string;
  version?: string | null;
  error?: string;
}

/** Parse the output of the check; a missing interpreter or garbage is a failed check. */
export function parseCheck(stdout: string, exitCode: number | null, spawnError?: string): CheckResult {
  if (spawnError) {
    return { ok: false, error: spawnError };
  }
  const line = stdout.trim().split("\n").pop() ?? "";
  try {
    const parsed = JSON.parse(line) as CheckResult;
    if (typeof parsed === "object" && typeof parsed.ok === "boolean") {
      return parsed;
    }
  } catch {
    // fall through
  }
  return { ok: false, error: `interpreter check failed (exit code ${exitCode ?? "?"}): ${shortOutput(stdout)}` };
}

function shortOutput(text: string): string {
  const t = text.trim();
  return t.length > 300 ? "…" + t.slice(-300) : t;
}

/** What to tell the user when `python` cannot run the server. */
export function unusableAdvice(python: string, error: string, bundled: boolean): string {
  if (/could not run|ENOENT/.test(error)) {
    return `cannot run the interpreter "${python}". Set tfInsight.interpreter to a Python ${MIN_PYTHON.join(".")}+ interpreter.`;
  }
  if (!bundled && /tf_insight/.test(error)) {
    return `${python} lacks the TF Insight packages (${error}), and this development build of the extension bundles none: install them there from the TF Insight sources (pip install -e ".[server,session]"), or build the extension with npm run package.`;
  }
  return `cannot start the server with ${python}: ${error}. Set tfInsight.interpreter to a Python ${MIN_PYTHON.join(".")}+ interpreter.`;
}
