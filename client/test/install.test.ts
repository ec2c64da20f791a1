import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import { checkArgs, fileUrl, parseCheck, pickWheel, pipFailureAdvice, pipInstallArgs } from "../src/core/install";

describe("install helpers", () => {
  it("parses the interpreter check", () => {
    assert.deepEqual(parseCheck('{"ok": true, "python": "3.11.2", "version": "0.1.0"}\n', 0), { ok: true, python: "3.11.2", version: "0.1.0" });
    assert.equal(parseCheck('{"ok": false, "error": "ModuleNotFoundError: No module named \'tf_insight_server\'"}', 0).ok, false);
    assert.match(parseCheck("garbage", 1).error ?? "", /exit code 1/);
    assert.deepEqual(parseCheck("", null, "could not run python9: ENOENT"), { ok: false, error: "could not run python9: ENOENT" });
    assert.equal(checkArgs()[0], "-c");
  });

  it("picks the newest bundled wheel", () => {
    assert.equal(pickWheel(["x.txt", "tf_insight-0.1.0-py3-none-any.whl", "tf_insight-0.10.0-py3-none-any.whl", "tf_insight-0.9.1-py3-none-any.whl"]), "tf_insight-0.10.0-py3-none-any.whl");
    assert.equal(pickWheel([]), undefined);
  });

  it("installs the wheel with the server and session extras by URL", () => {
    const args = pipInstallArgs("/ext/dist/bundled/tf_insight-0.1.0-py3-none-any.whl");
    assert.deepEqual(args.slice(0, 3), ["-m", "pip", "install"]);
    assert.equal(args[args.length - 1], "tf-insight[server,session] @ file:///ext/dist/bundled/tf_insight-0.1.0-py3-none-any.whl");
    assert.equal(fileUrl("/a b/c#d.whl"), "file:///a%20b/c%23d.whl");
  });

  it("gives advice for common pip failures", () => {
    assert.match(pipFailureAdvice("error: externally-managed-environment"), /virtual environment/);
    assert.match(pipFailureAdvice("/usr/bin/python3: No module named pip"), /no pip/);
  });
});
