import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import { chooseInterpreter, describeInterpreter, expandPath } from "../src/core/interpreter";

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
});
