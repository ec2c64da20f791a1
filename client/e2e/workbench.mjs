// Real VS Code (code-server) in Debian's Chromium, driven by Playwright: the browser, the page,
// named steps that record pass/fail with a screenshot each, and the editor helpers the drivers
// (drive.mjs: the features; attack.mjs: the workspace-trust attacks) share.
// Env (set by run.sh): TFI_E2E_URL, TFI_E2E_WS, TFI_E2E_ARTIFACTS, TFI_E2E_BROWSER_PROFILE.
import { chromium } from "playwright-core";
import { writeFileSync } from "node:fs";
import path from "node:path";

export const url = process.env.TFI_E2E_URL;
export const ws = process.env.TFI_E2E_WS;
const artifacts = process.env.TFI_E2E_ARTIFACTS ?? "test-artifacts/vscode";
const only = (process.env.TFI_E2E_ONLY ?? "").split(",").filter(Boolean);
if (!url || !ws) {
  console.error("e2e: TFI_E2E_URL and TFI_E2E_WS are required (run client/e2e/run.sh)");
  process.exit(2);
}

export const results = [];
let shot = 0;
const t0 = Date.now();

const context = await chromium.launchPersistentContext(process.env.TFI_E2E_BROWSER_PROFILE ?? "", {
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  headless: true,
  viewport: { width: 1600, height: 1000 },
  args: [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
  permissions: ["clipboard-read", "clipboard-write"],
});
export const page = context.pages()[0] ?? (await context.newPage());
page.setDefaultTimeout(30_000);

export async function screenshot(name) {
  shot += 1;
  const file = path.join(artifacts, `${String(shot).padStart(2, "0")}-${name}.png`);
  await page.screenshot({ path: file });
  return file;
}

/** Run one named step; record pass/fail, its duration and a screenshot; never throw. */
export async function step(name, fn, { required = false } = {}) {
  if (only.length && !only.some((o) => name.startsWith(o))) {
    return;
  }
  const start = Date.now();
  let ok = true;
  let detail = "";
  try {
    detail = (await fn()) ?? "";
  } catch (err) {
    ok = false;
    detail = String(err?.message ?? err).split("\n").slice(0, 6).join(" | ");
  }
  const file = await screenshot(name).catch(() => "");
  const seconds = (Date.now() - start) / 1000;
  results.push({ step: name, ok, seconds, detail, screenshot: file });
  console.log(`${ok ? "PASS" : "FAIL"} ${name} (${seconds.toFixed(1)} s)${detail ? ` — ${detail}` : ""}`);
  if (!ok && required) {
    throw new Error(`required step failed: ${name}`);
  }
  return ok;
}

export async function escapeAll() {
  for (let i = 0; i < 3; i++) {
    await page.keyboard.press("Escape");
  }
}

export async function runCommand(title) {
  // No Escape here: in an editor it would clear the selection that Explain reads.
  const widget = page.locator(".quick-input-widget");
  await widget.waitFor({ state: "hidden" });
  await page.keyboard.press("F1");
  const input = page.locator(".quick-input-widget input");
  await input.waitFor({ state: "visible" });
  await page.locator(".quick-input-widget input[placeholder*='command' i], .quick-input-widget .quick-input-list").first().waitFor({ state: "visible" }).catch(() => undefined);
  await input.fill(`>${title}`);
  const row = page.locator(".quick-input-widget .monaco-list-row", { hasText: title }).first();
  await row.waitFor({ state: "visible" });
  await page.keyboard.press("Enter");
}

export async function openFile(name) {
  await escapeAll();
  const row = page.locator(".explorer-folders-view .monaco-list-row", { hasText: name }).first();
  if (await row.isVisible().catch(() => false)) {
    await row.click(); // focus-independent, unlike Ctrl+P after a webview had focus
  } else {
    await page.keyboard.press("Control+P");
    const input = page.locator(".quick-input-widget input");
    await input.waitFor({ state: "visible" });
    await input.fill(name);
    await page.locator(".quick-input-widget .monaco-list-row", { hasText: name }).first().waitFor({ state: "visible" });
    await page.keyboard.press("Enter");
  }
  await page.locator(`.tabs-container .tab.active[aria-label*="${name}"]`).waitFor({ state: "visible" });
  // Focus the editor text.
  await page.locator(".editor-group-container.active .monaco-editor .view-lines").first().click({ position: { x: 5, y: 5 } });
}

export function activeEditor() {
  return page.locator(".editor-group-container.active .monaco-editor").first();
}

/** The rendered lines of the active editor in visual order (the DOM order of Monaco's line
 * nodes is not the line order), as one string. The fixtures are short: no scrolling. */
export async function editorText() {
  const lines = await page.evaluate(() => {
    const editor = document.querySelector(".editor-group-container.active .monaco-editor");
    const nodes = [...(editor?.querySelectorAll(".view-lines .view-line") ?? [])];
    return nodes
      .map((n) => ({ top: parseFloat(n.style.top || "0"), text: n.textContent ?? "" }))
      .sort((a, b) => a.top - b.top)
      .map((l) => l.text);
  });
  return lines.join("\n").replace(/\u00a0/g, " ");
}

/** Go to a 1-based line and column with "Go to Line/Column". */
export async function goTo(line, column = 1) {
  await escapeAll();
  await page.keyboard.press("Control+G");
  const input = page.locator(".quick-input-widget input");
  await input.waitFor({ state: "visible" });
  await input.fill(`:${line}:${column}`);
  await page.keyboard.press("Enter");
}

export async function lineNumberOf(needle) {
  const lines = (await editorText()).split("\n");
  const i = lines.findIndex((l) => l.includes(needle));
  if (i < 0) {
    throw new Error(`"${needle}" not in the editor`);
  }
  return { line: i + 1, column: lines[i].indexOf(needle) + 1 };
}

export function webviewFrame() {
  // code-server: iframe.webview (the host) → #active-frame (the extension's HTML).
  return page.frameLocator("iframe.webview.ready").last().frameLocator("#active-frame");
}

/** Open the workbench with the folder (a required first step). */
export async function openWorkbench() {
  await step("workbench", async () => {
    await page.goto(url);
    await page.locator(".monaco-workbench").waitFor({ state: "visible", timeout: 60_000 });
    await page.locator(".explorer-folders-view, .explorer-viewlet").first().waitFor({ state: "visible", timeout: 30_000 });
    return "workbench loaded";
  }, { required: true });
}

/** Write results.json, close the browser and exit: 0 if every step passed. */
export async function finish() {
  const failed = results.filter((r) => !r.ok).length;
  const summary = { passed: results.length - failed, failed, seconds: (Date.now() - t0) / 1000, results };
  writeFileSync(path.join(artifacts, "results.json"), JSON.stringify(summary, null, 2));
  console.log(`e2e: ${summary.passed} passed, ${failed} failed`);
  await context.close();
  process.exit(failed === 0 && results.length > 0 ? 0 : 1);
}
