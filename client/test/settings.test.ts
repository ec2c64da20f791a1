import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import { buildServerSettings } from "../src/core/settings";
import { resolveLaunch } from "../src/core/launch";

describe("buildServerSettings", () => {
  it("produces the contract's shape with defaults", () => {
    assert.deepEqual(buildServerSettings(() => undefined, null, false), {
      tfInsight: {
        interpreter: null,
        select: [],
        ignore: [],
        keras: "auto",
        session: { maxHits: 3, timeoutSeconds: 300, stopAfter: "" },
        trace: { server: "off" },
        trustedWorkspace: false,
      },
    });
    assert.equal(buildServerSettings(() => undefined, null, true).tfInsight.trustedWorkspace, true);
  });

  it("passes valid values and replaces invalid ones by defaults", () => {
    const values: Record<string, unknown> = {
      select: ["TFI001", 3, " TFI002 ", ""],
      ignore: "TFI003",
      keras: "4",
      "session.maxHits": 12.7,
      "session.timeoutSeconds": -1,
      "session.stopAfter": " verdict ",
      "trace.server": "verbose",
    };
    const s = buildServerSettings((k) => values[k], "/venv/bin/python", true).tfInsight;
    assert.equal(s.interpreter, "/venv/bin/python");
    assert.deepEqual(s.select, ["TFI001", "TFI002"]);
    assert.deepEqual(s.ignore, []);
    assert.equal(s.keras, "auto");
    assert.deepEqual(s.session, { maxHits: 12, timeoutSeconds: 300, stopAfter: "verdict" });
    assert.equal(s.trace.server, "verbose");
  });
});

describe("resolveLaunch", () => {
  it("runs the active Python file with the workspace as cwd", () => {
    const r = resolveLaunch({ python: "py", activeFile: "/ws/a.py", activeLanguage: "python", workspaceFolder: "/ws" });
    assert.deepEqual(r, { ok: true, launch: { script: "/ws/a.py", args: [], python: "py", cwd: "/ws", env: {} } });
  });

  it("prefers the configured launch, resolving relative paths", () => {
    const r = resolveLaunch({
      python: "py",
      activeFile: "/ws/other.py",
      workspaceFolder: "/ws",
      script: "scripts/train.py",
      args: ["--epochs", "1", 5],
      cwd: "${workspaceFolder}/run",
      env: { TF_CPP_MIN_LOG_LEVEL: "3", N: 2, bad: {} },
    });
    assert.deepEqual(r, {
      ok: true,
      launch: { script: "/ws/scripts/train.py", args: ["--epochs", "1"], python: "py", cwd: "/ws/run", env: { TF_CPP_MIN_LOG_LEVEL: "3", N: "2" } },
    });
  });

  it("explains why it cannot launch", () => {
    const none = resolveLaunch({ python: "py" });
    assert.equal(none.ok, false);
    const notPython = resolveLaunch({ python: "py", activeFile: "/ws/README.md", activeLanguage: "markdown" });
    assert.equal(notPython.ok, false);
  });
});
