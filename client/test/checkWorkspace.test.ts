import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import { checkWorkspaceMessage } from "../src/core/checkWorkspace";

describe("Check Workspace", () => {
  it("says how many findings in how many files, or that it was cancelled", () => {
    assert.equal(checkWorkspaceMessage({ files: 12, findings: 3, cancelled: false }), "TF Insight: 3 findings in 12 files.");
    assert.equal(checkWorkspaceMessage({ files: 1, findings: 1 }), "TF Insight: 1 finding in 1 file.");
    assert.equal(checkWorkspaceMessage({ files: 4, findings: 0, cancelled: true }), "TF Insight: check cancelled (0 findings in 4 files so far).");
    assert.equal(checkWorkspaceMessage({}), "TF Insight: 0 findings in 0 files.");
  });
});
