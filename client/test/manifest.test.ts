// package.json at the repo root is the single source of truth for ids: check the client agrees.
import { strict as assert } from "node:assert";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { Colors, Commands, CONFIG_SECTION, ContextKeys, Views } from "../src/ids";
import { ServerCommands } from "../src/core/protocol";

interface Manifest {
  main: string;
  icon?: string;
  engines: { vscode: string };
  dependencies?: Record<string, string>;
  activationEvents: string[];
  capabilities: { untrustedWorkspaces: { supported: string | boolean; restrictedConfigurations?: string[] } };
  contributes: {
    commands: Array<{ command: string; enablement?: string }>;
    menus: Record<string, Array<{ command: string; when?: string }>>;
    views: Record<string, Array<{ id: string }>>;
    configuration: { properties: Record<string, { default?: unknown }> };
    colors: Array<{ id: string }>;
    keybindings?: Array<{ command: string; key: string; when?: string }>;
  };
}

const ROOT = join(__dirname, "..", "..", "..");
const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as Manifest;

/** [major, minor] of a `^1.93.0`-style range. */
function minimum(range: string): [number, number] {
  const match = /(\d+)\.(\d+)/.exec(range);
  assert.ok(match, range);
  return [Number(match[1]), Number(match[2])];
}

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

  it("offers Explain Graph-Mode Error only in Python editors, notebooks and the terminal", () => {
    const where = (menu: string) => manifest.contributes.menus[menu]?.find((m) => m.command === Commands.explainGraphModeError);
    assert.equal(where("editor/context")?.when, "editorLangId == python");
    assert.ok(where("terminal/context"));
    assert.ok(where("notebook/cell/title"));
  });

  it("binds keys to the walk, only while there are steps", () => {
    const bound = new Map((manifest.contributes.keybindings ?? []).map((k) => [k.command, k]));
    for (const command of [Commands.nextStep, Commands.previousStep]) {
      assert.equal(bound.get(command)?.when, ContextKeys.hasSteps, command);
    }
    for (const { command } of manifest.contributes.keybindings ?? []) {
      assert.ok(contributed.includes(command), command);
    }
  });

  it("has a PNG icon", () => {
    assert.ok(manifest.icon?.endsWith(".png"));
    const bytes = readFileSync(join(ROOT, manifest.icon ?? ""));
    assert.deepEqual([...bytes.subarray(1, 4)], [...Buffer.from("PNG")]);
  });

  it("asks for a VS Code at least as new as every bundled dependency needs", () => {
    const ours = minimum(manifest.engines.vscode);
    for (const name of Object.keys(manifest.dependencies ?? {})) {
      const engines = (JSON.parse(readFileSync(join(ROOT, "node_modules", name, "package.json"), "utf8")) as { engines?: { vscode?: string } }).engines;
      if (engines?.vscode) {
        const theirs = minimum(engines.vscode);
        assert.ok(ours[0] > theirs[0] || (ours[0] === theirs[0] && ours[1] >= theirs[1]), `${name} needs vscode ${engines.vscode}`);
      }
    }
  });

  it("declares limited support for untrusted workspaces and protects the interpreter setting", () => {
    const trust = manifest.capabilities.untrustedWorkspaces;
    assert.equal(trust.supported, "limited");
    assert.ok(trust.restrictedConfigurations?.includes(`${CONFIG_SECTION}.interpreter`));
    assert.equal(manifest.main, "./dist/extension.js");
  });
});
