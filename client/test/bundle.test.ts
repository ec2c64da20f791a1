import { strict as assert } from "node:assert";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { BUNDLE_ENV, checkArgs, parseCheck, serverArgs, unusableAdvice } from "../src/core/bundle";

// A real interpreter runs the generated Python: the check and the launcher are code strings.
const python = process.env.PYTHON ?? "python3";

/** A bundle whose `libs` holds stand-ins for the two packages, to see which ones were used. */
function fakeBundle(): string {
  const bundle = mkdtempSync(join(tmpdir(), "tfi-bundle-"));
  for (const name of ["tf_insight", "tf_insight_server"]) {
    mkdirSync(join(bundle, "libs", name), { recursive: true });
    writeFileSync(join(bundle, "libs", name, "__init__.py"), name === "tf_insight" ? "__version__ = '9.9.9'\n" : "");
  }
  writeFileSync(join(bundle, "libs", "tf_insight_server", "__main__.py"), "def main():\n    print('bundled server')\n    return 3\n");
  return bundle;
}

function runPython(args: string[], env: Record<string, string>): { stdout: string; status: number } {
  try {
    return { stdout: execFileSync(python, args, { env: { ...process.env, ...env }, encoding: "utf8" }), status: 0 };
  } catch (err) {
    const e = err as { stdout: string; status: number };
    return { stdout: e.stdout, status: e.status };
  }
}

describe("the bundled server", () => {
  it("checks the interpreter with the bundle's packages first", () => {
    const bundle = fakeBundle();
    const out = runPython(checkArgs(true), { [BUNDLE_ENV]: bundle });
    assert.deepEqual(
      { ok: parseCheck(out.stdout, out.status).ok, version: parseCheck(out.stdout, out.status).version },
      { ok: true, version: "9.9.9" },
    );
  });

  it("starts the bundle's server, not an installed one", () => {
    const out = runPython(serverArgs(true), { [BUNDLE_ENV]: fakeBundle() });
    assert.deepEqual(out, { stdout: "bundled server\n", status: 3 });
    assert.deepEqual(serverArgs(false), ["-m", "tf_insight_server"]);
  });

  it("says what is wrong with an interpreter that cannot run it", () => {
    const empty = mkdtempSync(join(tmpdir(), "tfi-empty-"));
    const out = runPython(checkArgs(true), { [BUNDLE_ENV]: empty });
    const result = parseCheck(out.stdout, out.status);
    assert.equal(result.ok, false);
    assert.match(result.error ?? "", /No module named 'tf_insight_server'/);
    assert.match(unusableAdvice("/usr/bin/python9", "could not run /usr/bin/python9: ENOENT", true), /Set tfInsight.interpreter/);
    assert.match(unusableAdvice("py", "ModuleNotFoundError: No module named 'tf_insight_server'", false), /development build/);
    assert.match(unusableAdvice("py", "Python 3.10 or newer is needed, this is 3.8.10", true), /3.10 or newer/);
  });

  it("parses the interpreter check", () => {
    assert.deepEqual(parseCheck('{"ok": true, "python": "3.11.2", "version": "0.1.0"}\n', 0), { ok: true, python: "3.11.2", version: "0.1.0" });
    assert.match(parseCheck("garbage", 1).error ?? "", /exit code 1/);
    assert.deepEqual(parseCheck("", null, "could not run python9: ENOENT"), { ok: false, error: "could not run python9: ENOENT" });
  });
});
