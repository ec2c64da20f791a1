// The workspace-trust attacks in real VS Code: a cloned repository (tests/security/workspace.py)
// that tries to get its own code run just by being opened. Static analysis must work on it,
// and no payload may run: not the workspace's shadowing modules, not its compiled extensions,
// and, in an untrusted workspace, not the interpreter its pyproject.toml names.
// Env (set by run.sh): those of workbench.mjs, TFI_E2E_MARKER (where payloads record that they
// ran), TFI_E2E_TRUSTED (1: workspace trust off, everything trusted; 0: the folder untrusted).
import { existsSync, readFileSync } from "node:fs";
import { activeEditor, finish, openFile, openWorkbench, page, runCommand, step } from "./workbench.mjs";

const marker = process.env.TFI_E2E_MARKER;
const trusted = process.env.TFI_E2E_TRUSTED === "1";

function ran() {
  return marker && existsSync(marker) ? readFileSync(marker, "utf8").split("\n").filter(Boolean) : [];
}

try {
  await openWorkbench();

  if (!trusted) {
    await step("restricted-mode", async () => {
      const badge = page.locator(".statusbar-item", { hasText: /Restricted Mode/i }).first();
      await badge.waitFor({ state: "visible", timeout: 30_000 });
      return (await badge.innerText()).replace(/\s+/g, " ");
    });
  }

  await step("diagnostics", async () => {
    await openFile("train.py");
    const squiggle = activeEditor().locator(".squiggly-warning, .squiggly-error").first();
    await squiggle.waitFor({ state: "visible", timeout: 90_000 });
    await page.keyboard.press("Control+Shift+M");
    const rows = page.locator(".markers-panel .monaco-list-row", { hasText: "TFI006" });
    await rows.first().waitFor({ state: "visible" });
    return `static analysis works: ${(await rows.first().innerText()).replace(/\s+/g, " ").slice(0, 120)}`;
  });

  if (!trusted) {
    await step("no-guided-session", async () => {
      await runCommand("TF Insight: Start Guided Session").then(
        () => { throw new Error("Start Guided Session is offered in Restricted Mode"); },
        () => undefined,
      );
      await page.keyboard.press("Escape");
      return "the command is not offered in an untrusted workspace";
    });
  }

  await step("nothing-ran", async () => {
    // The analysis (and jedi's name resolution into the workspace's modules) is done by now;
    // give a straggler a moment before reading what ran.
    await page.waitForTimeout(3_000);
    const payloads = ran();
    if (payloads.length) {
      throw new Error(`the workspace's code ran: ${payloads.join("; ")}`);
    }
    return `no payload ran (${trusted ? "trusted" : "untrusted"} workspace)`;
  });
} catch (err) {
  console.error(String(err));
} finally {
  await finish();
}
