// Checking for and installing the Python side (packages `tf_insight` + `tf_insight_server`) in
// the chosen interpreter. The .vsix ships them as a wheel under `bundled/`; installing means
// `<python> -m pip install "tf-insight[server,session] @ file:///…/bundled/<wheel>"`, which
// also brings pygls, lsprotocol, jedi and debugpy from the package index.

/** Args for `<python> …` that print a JSON line about the installed packages, exit 0 if usable. */
export function checkArgs(): string[] {
  const code = [
    "import json, sys",
    "info = {'python': sys.version.split()[0], 'executable': sys.executable}",
    "try:",
    "    import tf_insight_server, tf_insight",
    "    from importlib import metadata",
    "    try: info['version'] = metadata.version('tf-insight')",
    "    except Exception: info['version'] = None",
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

/** Wheel file names look like `tf_insight-0.1.0-py3-none-any.whl`; pick the newest by version. */
export function pickWheel(fileNames: readonly string[]): string | undefined {
  const wheels = fileNames.filter((f) => /^tf_insight-[^-]+-.+\.whl$/.test(f));
  const version = (f: string): number[] => (f.split("-")[1] ?? "0").split(/[.+]/).map((p) => parseInt(p, 10) || 0);
  wheels.sort((a, b) => {
    const va = version(a);
    const vb = version(b);
    for (let i = 0; i < Math.max(va.length, vb.length); i++) {
      const d = (va[i] ?? 0) - (vb[i] ?? 0);
      if (d !== 0) {
        return d;
      }
    }
    return 0;
  });
  return wheels[wheels.length - 1];
}

export function fileUrl(path: string): string {
  const normalised = path.replace(/\\/g, "/");
  const withSlash = normalised.startsWith("/") ? normalised : "/" + normalised;
  return "file://" + encodeURI(withSlash).replace(/#/g, "%23").replace(/\?/g, "%3F");
}

/** Args for `<python> …` that install the bundled wheel with the server and session extras. */
export function pipInstallArgs(wheelPath: string): string[] {
  return [
    "-m",
    "pip",
    "install",
    "--disable-pip-version-check",
    "--progress-bar",
    "off",
    `tf-insight[server,session] @ ${fileUrl(wheelPath)}`,
  ];
}

/** Human advice for a failed pip run, from its output. */
export function pipFailureAdvice(output: string): string {
  if (/externally-managed-environment/.test(output)) {
    return "This interpreter is managed by the system (PEP 668) and refuses pip installs. Create a virtual environment (python3 -m venv .venv), select it in the Python extension or set tfInsight.interpreter to it, then install again.";
  }
  if (/No module named pip/.test(output)) {
    return "This interpreter has no pip. Install pip for it (e.g. python3 -m ensurepip) or choose another interpreter.";
  }
  if (/Could not find a version|No matching distribution|Failed to establish a new connection|ConnectTimeout/.test(output)) {
    return "pip could not download the dependencies (pygls, lsprotocol, jedi, debugpy). Check the network or a pip index configuration, then try again.";
  }
  if (/requires a different Python|Requires-Python/.test(output)) {
    return "TF Insight needs Python 3.10 or newer; choose another interpreter.";
  }
  return "See the TF Insight output channel for pip's output.";
}

/** Progress lines worth showing from pip's output (`Collecting x`, `Installing collected packages`). */
export function pipProgressLine(line: string): string | undefined {
  const t = line.trim();
  const m = /^(Collecting|Downloading|Installing collected packages|Successfully installed|Processing|Building wheel)\b.*/.exec(t);
  return m ? shortOutput(m[0]).slice(0, 120) : undefined;
}
