import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { chooseInterpreter, describeInterpreter, expandPath } from "../src/core/interpreter";
import { ourPythonEnv } from "../src/core/processEnv";

describe("chooseInterpreter", () => {
  it("prefers the tfInsight.interpreter setting over the Python extension", () => {
    const c = chooseInterpreter({ setting: "/opt/venv/bin/python", pythonExtension: "/usr/bin/python3.11" });
    assert.deepEqual(c, { command: "/opt/venv/bin/python", source: "setting" });
  });

  it("uses the Python extension's interpreter when the setting is empty or blank", () => {
    for (const setting of [null, undefined, "", "   "]) {
      const c = chooseInterpreter({ setting, pythonExtension: "/ws/.venv/bin/python" });
      assert.deepEqual(c, { command: "/ws/.venv/bin/python", source: "python-extension" });
    }
  });

  it("falls back to python3 without setting and without the Python extension", () => {
    assert.deepEqual(chooseInterpreter({}), { command: "python3", source: "default" });
    assert.deepEqual(chooseInterpreter({ setting: null, pythonExtension: "" }), { command: "python3", source: "default" });
  });

  it("expands ${workspaceFolder}, ${userHome} and ~ in the setting", () => {
    const c = chooseInterpreter({ setting: "${workspaceFolder}/.venv/bin/python", workspaceFolder: "/ws", homeDir: "/home/u" });
    assert.equal(c.command, "/ws/.venv/bin/python");
    assert.equal(expandPath("~/venvs/tf/bin/python", null, "/home/u"), "/home/u/venvs/tf/bin/python");
    assert.equal(expandPath("${userHome}/x", null, "/home/u"), "/home/u/x");
    assert.equal(expandPath("~other/x", null, "/home/u"), "~other/x");
  });

  it("describes where the interpreter came from", () => {
    assert.match(describeInterpreter({ command: "python3", source: "default" }), /default/);
    assert.match(describeInterpreter({ command: "/p", source: "setting" }), /tfInsight\.interpreter/);
  });

  it("in an untrusted workspace never picks an interpreter inside it, and says which it refused", () => {
    const ws = fs.mkdtempSync(path.join(os.tmpdir(), "tfi-ws-"));
    const inside = path.join(ws, ".venv", "bin", "python");
    const untrusted = { workspaceFolder: ws, workspaceFolders: [ws], trusted: false };
    assert.deepEqual(chooseInterpreter({ ...untrusted, pythonExtension: inside }),
      { command: "python3", source: "default", refused: inside });
    assert.deepEqual(chooseInterpreter({ ...untrusted, setting: "${workspaceFolder}/tools/py", pythonExtension: "/usr/bin/python3.11" }),
      { command: "/usr/bin/python3.11", source: "python-extension", refused: path.join(ws, "tools", "py") });
    fs.mkdirSync(path.join(ws, "real"));
    fs.symlinkSync(path.join(ws, "real"), path.join(os.tmpdir(), `tfi-link-${path.basename(ws)}`));
    const viaLink = path.join(os.tmpdir(), `tfi-link-${path.basename(ws)}`, "python");
    assert.equal(chooseInterpreter({ ...untrusted, setting: viaLink }).source, "default", "a link into the workspace is inside it");
    assert.deepEqual(chooseInterpreter({ ...untrusted, trusted: true, pythonExtension: inside }),
      { command: inside, source: "python-extension" });
  });
});

describe("ourPythonEnv", () => {
  it("sets safe path mode and drops what would import from the current folder", () => {
    const env = ourPythonEnv({ PATH: "/bin", PYTHONPATH: ":src:/opt/lib::.", PYTHONSTARTUP: "/x.py", PYTHONINSPECT: "1" }, ":");
    assert.deepEqual(env, { PATH: "/bin", PYTHONPATH: "/opt/lib", PYTHONSAFEPATH: "1" });
    assert.equal(ourPythonEnv({ PYTHONPATH: "." }, ":").PYTHONPATH, undefined);
  });
});
