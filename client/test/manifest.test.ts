// package.json at the repo root is the single source of truth for ids: check the client agrees.
import { strict as assert } from "node:assert";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { Colors, Commands, CONFIG_SECTION, ContextKeys, Views } from "../src/ids";
import { ServerCommands } from "../src/core/protocol";

interface Manifest {
  main: string;
  activationEvents: string[];
  capabilities: { untrustedWorkspaces: { supported: string | boolean; restrictedConfigurations?: string[] } };
  contributes: {
    commands: Array<{ command: string; enablement?: string }>;
    menus: Record<string, Array<{ command: string; when?: string }>>;
    views: Record<string, Array<{ id: string }>>;
    configuration: { properties: Record<string, { default?: unknown }> };
    colors: Array<{ id: string }>;
  };
}

const manifest = JSON.parse(readFileSync(join(__dirname, "..", "..", "..", "package.json"), "utf8")) as Manifest;

describe("package.json", () => {
  const contributed = manifest.contributes.commands.map((c) => c.command);

  it("contributes exactly the commands the client registers", () => {
    assert.deepEqual([...contributed].sort(), Object.values(Commands).sort());
  });

  it("does not reuse the server's executeCommand ids (vscode-languageclient registers those)", () => {
    for (const id of Object.values(ServerCommands)) {
      assert.ok(!contributed.includes(id), `${id} collides with a server command`);
    }
  });

  it("menus only reference contributed commands", () => {
    for (const [menu, items] of Object.entries(manifest.contributes.menus)) {
      for (const item of items) {
        assert.ok(contributed.includes(item.command), `${menu} references unknown ${item.command}`);
      }
    }
  });

  it("contributes the view, colours and settings the client uses", () => {
    const views = Object.values(manifest.contributes.views).flat().map((v) => v.id);
    assert.ok(views.includes(Views.session));
    const colors = manifest.contributes.colors.map((c) => c.id);
    for (const id of Object.values(Colors)) {
      assert.ok(colors.includes(id), id);
    }
    const props = Object.keys(manifest.contributes.configuration.properties);
    for (const key of ["interpreter", "select", "ignore", "keras", "session.maxHits", "session.timeoutSeconds", "trace.server"]) {
      assert.ok(props.includes(`${CONFIG_SECTION}.${key}`), key);
    }
  });

  it("uses the context keys in enablement clauses", () => {
    const clauses = manifest.contributes.commands.map((c) => c.enablement ?? "").join(" ");
    assert.ok(clauses.includes(ContextKeys.sessionRunning));
    assert.ok(clauses.includes(ContextKeys.hasSteps));
  });

  it("declares limited support for untrusted workspaces and protects the interpreter setting", () => {
    const trust = manifest.capabilities.untrustedWorkspaces;
    assert.equal(trust.supported, "limited");
    assert.ok(trust.restrictedConfigurations?.includes(`${CONFIG_SECTION}.interpreter`));
    assert.equal(manifest.main, "./dist/extension.js");
  });
});
