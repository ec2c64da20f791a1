// Drive real VS Code (code-server) with Playwright in Debian's Chromium through the TF Insight
// features, waiting on real UI and saving a screenshot after every step (workbench.mjs).
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import {
  activeEditor, editorText, escapeAll, finish, goTo, lineNumberOf, openFile, openWorkbench, page,
  runCommand, screenshot, step, webviewFrame, ws,
} from "./workbench.mjs";

// A tf.function of our own for the debugger steps: traced twice (shapes 3 and 4).
const GRAPH_DEBUG = `import tensorflow as tf


@tf.function
def step(x):
    if tf.reduce_sum(x) > 0:
        return x * 2
    return x


for n in (3, 3, 4):
    print(step(tf.ones(n)).numpy())
`;

try {
  writeFileSync(path.join(ws, "graph_debug.py"), GRAPH_DEBUG);
  await openWorkbench();

  await step("diagnostics", async () => {
    await openFile("summary_step.py");
    const squiggle = activeEditor().locator(".squiggly-warning, .squiggly-error, .squiggly-info").first();
    await squiggle.waitFor({ state: "visible", timeout: 60_000 });
    const status = await page.locator(".statusbar-item", { hasText: "TFI" }).first().innerText();
    const n = await activeEditor().locator(".squiggly-warning, .squiggly-error, .squiggly-info").count();
    return `${n} squiggles; status bar: ${status.replace(/\s+/g, " ")}`;
  });

  await step("problems-panel", async () => {
    await page.keyboard.press("Control+Shift+M");
    const rows = page.locator(".markers-panel .monaco-list-row", { hasText: "TFI" });
    await rows.first().waitFor({ state: "visible" });
    const texts = await rows.allInnerTexts();
    if (!texts.some((t) => /TFI004/.test(t))) {
      throw new Error(`no TFI004 row in the Problems panel: ${texts.join(" / ")}`);
    }
    return `${texts.length} TF Insight rows, e.g. ${texts[0].replace(/\s+/g, " ").slice(0, 140)}`;
  });

  await step("hover", async () => {
    await page.keyboard.press("Control+Shift+M"); // hide the panel again
    await activeEditor().locator(".view-lines").first().click({ position: { x: 5, y: 5 } });
    const { line, column } = await lineNumberOf("    log_metric(step)");
    await goTo(line, column + "    log_metric(".length + 1);
    // Show the hover at the cursor (Ctrl+K Ctrl+I), which is what a mouse hover shows too.
    await page.keyboard.press("Control+K");
    await page.keyboard.press("Control+I");
    const hover = page.locator(".monaco-hover:not(.hidden)", { hasText: "TFI004" }).first();
    await hover.waitFor({ state: "visible", timeout: 20_000 });
    const text = (await hover.innerText()).replace(/\s+/g, " ");
    if (!/python-scalar|Python|retrac/i.test(text)) {
      throw new Error(`hover does not show the rule doc: ${text.slice(0, 200)}`);
    }
    return text.slice(0, 200);
  });

  await step("quick-fix", async () => {
    await escapeAll();
    const { line, column } = await lineNumberOf("    log_metric(step)");
    await goTo(line, column + "    log_metric(".length + 1);
    await page.keyboard.press("Control+.");
    const items = page.locator(".action-widget .action-item, .action-widget .monaco-list-row");
    await items.first().waitFor({ state: "visible" });
    await screenshot("quick-fix-menu");
    const titles = await items.allInnerTexts();
    const fix = items.filter({ hasText: /convert_to_tensor|int64|tensor/i }).first();
    if ((await fix.count()) === 0) {
      throw new Error(`no tensor quick fix in: ${titles.join(" / ")}`);
    }
    await fix.click();
    await page.waitForFunction(
      () => document.querySelector(".editor-group-container.active .monaco-editor .view-lines")?.textContent?.replace(/\u00a0/g, " ").includes("tf.convert_to_tensor(step, tf.int64)"),
      undefined,
      { timeout: 15_000 },
    );
    const changed = (await editorText()).split("\n").find((l) => l.includes("convert_to_tensor"));
    return `applied; line now: ${changed?.trim()}`;
  });

  await step("explain-rule-action", async () => {
    // The server's "Explain rule" code action returns the rule's Markdown; the client shows it.
    await escapeAll();
    const { line, column } = await lineNumberOf("log_metric(tf.constant(20))");
    await goTo(line, column + "log_metric(".length + 2);
    // Right after the previous fix the document is re-analysed: ask again until the menu has it.
    const item = page.locator(".action-widget .action-item, .action-widget .monaco-list-row").filter({ hasText: /Explain rule TFI005/ }).first();
    for (let attempt = 0; ; attempt++) {
      await page.keyboard.press("Control+.");
      try {
        await item.waitFor({ state: "visible", timeout: 5_000 });
        break;
      } catch (err) {
        if (attempt >= 4) {
          throw err;
        }
        await page.keyboard.press("Escape");
        await page.waitForTimeout(1_000);
      }
    }
    await item.click();
    const frame = webviewFrame();
    await frame.locator("body", { hasText: "TFI005" }).waitFor({ state: "visible", timeout: 20_000 });
    const text = (await frame.locator("body").innerText()).replace(/\s+/g, " ");
    await screenshot("explain-rule-panel");
    const panelTab = page.locator(".tabs-container .tab", { hasText: "TF Insight: Rule" }).first();
    await panelTab.click({ button: "middle" });
    await page.locator(".tabs-container .tab", { hasText: "TF Insight: Rule" }).waitFor({ state: "detached" });
    return text.slice(0, 200);
  });

  await step("explain", async () => {
    await openFile("remat_traceback.txt");
    await page.keyboard.press("Control+A");
    await page.locator(".statusbar-item", { hasText: /selected/ }).first().waitFor({ state: "visible", timeout: 10_000 });
    await runCommand("TF Insight: Explain Graph-Mode Error");
    const frame = webviewFrame();
    const h1 = frame.locator("h1");
    await h1.waitFor({ state: "visible", timeout: 30_000 });
    const title = await h1.innerText();
    const body = await frame.locator("body").innerText();
    if (!/custom_gradient|keyword|remat/i.test(body)) {
      throw new Error(`the explanation does not mention the cause: ${body.slice(0, 300)}`);
    }
    const links = await frame.locator("a[data-frame], a[data-user-frame]").count();
    const fix = await frame.locator("#apply-fix").count();
    return `panel: "${title}"; ${links} frame links; quick-fix button: ${fix > 0 ? "yes" : "no"}`;
  });

  await step("explain-open-frame", async () => {
    const frame = webviewFrame();
    const link = frame.locator("a[data-user-frame]").first();
    await link.click();
    await page.locator('.tabs-container .tab.active[aria-label*="remat_scope_dropout.py"]').waitFor({ state: "visible", timeout: 15_000 });
    await screenshot("explain-frame-opened");
    // Close the panel so that the next steps have one editor group.
    const panelTab = page.locator(".tabs-container .tab", { hasText: "TF Insight: Explanation" }).first();
    await panelTab.click({ button: "middle" }); // middle click closes a tab
    await page.locator(".tabs-container .tab", { hasText: "TF Insight: Explanation" }).waitFor({ state: "detached" });
    return "the user frame link opened remat_scope_dropout.py";
  });

  if (process.env.TFI_E2E_SUMMARY_TRACEBACK === "1") {
    await step("explain-apply-fix", async () => {
      // A real int32-step error from summary_step.py: its rule (TFI005) has a quick fix, which
      // the panel's button applies to the file.
      await openFile("summary_traceback.txt");
      await page.keyboard.press("Control+A");
      await page.locator(".statusbar-item", { hasText: /selected/ }).first().waitFor({ state: "visible", timeout: 10_000 });
      await runCommand("TF Insight: Explain Graph-Mode Error");
      const frame = webviewFrame();
      await frame.locator("h1").waitFor({ state: "visible", timeout: 30_000 });
      const button = frame.locator("#apply-fix");
      await button.waitFor({ state: "visible", timeout: 30_000 });
      const label = await button.innerText();
      await screenshot("explain-fix-button");
      await button.click();
      await page.locator('.tabs-container .tab.active[aria-label*="summary_step.py"]').first().waitFor({ state: "visible", timeout: 15_000 });
      await page.waitForFunction(
        () => [...document.querySelectorAll(".monaco-editor .view-lines")].some((v) => /log_metric\(tf\.constant\(20[^)]*int64/.test(v.textContent?.replace(/\u00a0/g, " ") ?? "")),
        undefined,
        { timeout: 15_000 },
      );
      const line = (await editorText()).split("\n").find((l) => l.includes("tf.constant(20"));
      await screenshot("explain-fix-applied");
      const panelTab = page.locator(".tabs-container .tab", { hasText: "TF Insight: Explanation" }).first();
      await panelTab.click({ button: "middle" });
      await page.locator(".tabs-container .tab", { hasText: "TF Insight: Explanation" }).waitFor({ state: "detached" });
      return `${label}; line now: ${line?.trim()}`;
    });
  }

  // The notebook saved by a real kernel run (run.sh), from the Explorer: the cell that failed.
  const focusNotebookCell = async () => {
    await page.locator(".explorer-folders-view .monaco-list-row", { hasText: "graph_error.ipynb" }).first().click();
    await page.locator('.tabs-container .tab.active[aria-label*="graph_error.ipynb"]').waitFor({ state: "visible" });
    const cell = page.locator(".notebookOverlay .monaco-list-row", { hasText: "positive_only" }).first();
    await cell.waitFor({ state: "visible", timeout: 30_000 });
    await cell.locator(".view-lines").first().click();
  };

  await step("explain-notebook-output", async () => {
    // The notebook as saved by a real kernel run (run.sh); its outputs render in a webview.
    await escapeAll();
    await focusNotebookCell();
    await runCommand("TF Insight: Explain Graph-Mode Error");
    const frame = webviewFrame();
    await frame.locator("h1").waitFor({ state: "visible", timeout: 30_000 });
    const where = await frame.locator("p.where").innerText();
    if (!/notebook cell In\[2\], line 3/.test(where)) {
      throw new Error(`the explanation does not point at the cell: ${where}`);
    }
    const sure = await frame.locator("p.confidence").innerText();
    const title = await frame.locator("h1").innerText();
    await screenshot("explain-notebook-output");
    await frame.locator("a[data-user-frame]").first().click();
    await page.locator(".notebookOverlay .monaco-list-row.focused", { hasText: "positive_only" }).first().waitFor({ state: "visible", timeout: 15_000 });
    const notebookTabs = await page.locator(".tabs-container .tab", { hasText: "graph_error.ipynb" }).count();
    if (notebookTabs !== 1) {
      throw new Error(`the cell link opened the notebook again (${notebookTabs} tabs)`);
    }
    await screenshot("explain-notebook-cell-opened");
    const panelTab = page.locator(".tabs-container .tab", { hasText: "TF Insight: Explanation" }).first();
    await panelTab.click({ button: "middle" });
    await page.locator(".tabs-container .tab", { hasText: "TF Insight: Explanation" }).waitFor({ state: "detached" });
    return `${title}; ${where}; ${sure.slice(0, 120)}`;
  });

  await step("session-start", async () => {
    await openFile("remat_scope_dropout.py");
    await runCommand("TF Insight: Start Guided Session");
    // Progress notification, then steps in the TF Insight view.
    await page.locator(".notifications-toasts, .notification-toast", { hasText: /guided session/i }).first().waitFor({ state: "visible", timeout: 30_000 });
    // The extension focuses its "TF Insight" side bar view when a session starts.
    const view = page.locator(".part.sidebar");
    await page.locator(".part.sidebar .composite.title", { hasText: /TF Insight/i }).first().waitFor({ state: "visible", timeout: 30_000 });
    await view.locator(".monaco-list-row", { hasText: "__call__" }).first().waitFor({ state: "visible", timeout: 120_000 });
    return `steps appear: ${(await view.locator(".monaco-list-row").allInnerTexts()).slice(0, 4).join(" / ").replace(/\s+/g, " ")}`;
  });

  await step("session-verdict", async () => {
    const view = page.locator(".part.sidebar");
    const verdict = view.locator(".monaco-list-row", { hasText: "Verdict" }).first();
    await verdict.waitFor({ state: "visible", timeout: 240_000 });
    const text = (await verdict.innerText()).replace(/\s+/g, " ");
    if (!text.includes("TFI001")) {
      throw new Error(`verdict is not TFI001: ${text}`);
    }
    const rows = await view.locator(".monaco-list-row").count();
    return `${text.slice(0, 160)} (${rows} rows in the view)`;
  });

  // The after-line text is CSS content on a decoration span: read it from the computed style.
  const inlineTexts = () => page.evaluate(() => {
    const editor = document.querySelector(".editor-group-container.active .monaco-editor");
    const out = [];
    for (const el of editor?.querySelectorAll(".view-lines span") ?? []) {
      const after = getComputedStyle(el, "::after").content;
      if (after && after !== "none" && /⟵|⚑/.test(after)) {
        out.push(after);
      }
      if (el.textContent && /⟵|⚑/.test(el.textContent)) {
        out.push(el.textContent);
      }
    }
    return [...new Set(out)];
  });

  await step("inline-annotations", async () => {
    await escapeAll();
    const texts = await inlineTexts();
    if (!texts.some((t) => /graph \(one_step_on_data\)/.test(t))) {
      throw new Error(`no graph-mode annotation inline: ${JSON.stringify(texts).slice(0, 400)}`);
    }
    return texts.map((t) => t.replace(/^"|"$/g, "")).join(" | ").slice(0, 400);
  });

  await step("annotation-hover", async () => {
    const { line } = await lineNumberOf("model.fit(");
    await goTo(line, 5);
    await page.keyboard.press("Control+K");
    await page.keyboard.press("Control+I");
    const hover = page.locator(".monaco-hover:not(.hidden)", { hasText: "TF Insight" }).first();
    await hover.waitFor({ state: "visible", timeout: 15_000 });
    const text = (await hover.innerText()).replace(/\s+/g, " ");
    if (!/call_fn|kwargs/.test(text)) {
      throw new Error(`hover lacks the annotation: ${text.slice(0, 200)}`);
    }
    return text.slice(0, 240);
  });

  await step("walk-next-step", async () => {
    await escapeAll();
    await activeEditor().locator(".view-lines").first().click({ position: { x: 5, y: 5 } });
    await runCommand("TF Insight: Next Step");
    await page.locator(".quick-input-widget").waitFor({ state: "hidden" });
    await runCommand("TF Insight: Next Step");
    // The second stop of the chain is the library line the probe hit (Keras/TF source).
    const libraryTab = () =>
      [...document.querySelectorAll(".tabs-container .tab.active")]
        .map((t) => t.getAttribute("aria-label") ?? "")
        .find((t) => /operation\.py|custom_gradient\.py|layer\.py/.test(t));
    await page.waitForFunction(libraryTab, undefined, { timeout: 15_000 });
    const label = await page.evaluate(libraryTab);
    const cursor = await page.locator(".statusbar-item", { hasText: /Ln \d+/ }).first().innerText();
    // The probe line in Keras's/TF's source carries the step's annotation too.
    await page.waitForFunction(() => document.querySelector(".editor-group-container.active .monaco-editor .view-lines") !== null);
    let texts = [];
    for (let tries = 0; tries < 30 && !texts.some((t) => /call_fn|graph/.test(t)); tries++) {
      await page.waitForTimeout(200);
      texts = await inlineTexts();
    }
    if (!texts.some((t) => /call_fn|graph/.test(t))) {
      throw new Error(`no annotation on the library probe line: ${JSON.stringify(texts).slice(0, 300)}`);
    }
    return `opened ${label?.split(",")[0]} at ${cursor.trim()} (the probe line, highlighted): ${texts[0]?.slice(0, 160)}`;
  });

  await step("verdict-panel", async () => {
    const view = page.locator(".part.sidebar");
    await view.locator(".monaco-list-row", { hasText: "Verdict" }).first().click();
    const frame = webviewFrame();
    await frame.locator("h1").waitFor({ state: "visible", timeout: 15_000 });
    const body = await frame.locator("body").innerText();
    if (!/TFI001/.test(body) || !/Fix/.test(body)) {
      throw new Error(`verdict panel lacks the rule or the fix: ${body.slice(0, 200)}`);
    }
    // The verdict opened the line of yours that did it, which leads with the verdict inline.
    const verdictInline = () => [...document.querySelectorAll(".monaco-editor .view-lines span")]
      .map((el) => getComputedStyle(el, "::after").content).find((c) => c && c.includes("⚑"));
    await page.waitForFunction(verdictInline, undefined, { timeout: 15_000 });
    return `${(await frame.locator("h1").innerText()).slice(0, 160)}; at your line: ${(await page.evaluate(verdictInline))?.slice(0, 120)}`;
  });

  await step("status-bar", async () => {
    const item = page.locator(".statusbar-item", { hasText: "TFI" }).first();
    const text = (await item.innerText()).replace(/\s+/g, " ");
    if (!/ready/.test(text) || !/finding/.test(text)) {
      throw new Error(`unexpected status bar: ${text}`);
    }
    return text;
  });

  await step("notebook-session", async () => {
    // A guided session run from a notebook runs its code cells in order; the steps and the
    // verdict are annotated in the notebook's own cells.
    // Out of the verdict panel's webview first (it keeps the keyboard), then the Explorer.
    await page.locator(".tabs-container .tab", { hasText: "remat_scope_dropout.py" }).first().click();
    await runCommand("View: Show Explorer");
    await focusNotebookCell();
    await runCommand("TF Insight: Start Guided Session");
    const view = page.locator(".part.sidebar");
    await view.locator(".monaco-list-row", { hasText: "graph_error.ipynb" }).first().waitFor({ state: "visible", timeout: 60_000 });
    await view.locator(".monaco-list-row", { hasText: "Verdict" }).first().waitFor({ state: "visible", timeout: 240_000 });
    const cellTexts = () => [...document.querySelectorAll(".notebookOverlay .monaco-editor .view-lines span")]
      .map((el) => getComputedStyle(el, "::after").content)
      .filter((c) => c && c !== "none" && /⟵|⚑/.test(c));
    await page.waitForFunction(() => [...document.querySelectorAll(".notebookOverlay .monaco-editor .view-lines span")]
      .some((el) => getComputedStyle(el, "::after").content.includes("⚑")), undefined, { timeout: 30_000 });
    const texts = [...new Set(await page.evaluate(cellTexts))];
    if (!texts.some((t) => t.includes("⚑ TFI013")) || !texts.some((t) => t.includes("⟵ function.trace"))) {
      throw new Error(`the cell lacks the verdict or the step: ${JSON.stringify(texts).slice(0, 300)}`);
    }
    await screenshot("notebook-session");
    return texts.map((t) => t.replace(/^"|"$/g, "")).join(" | ").slice(0, 300);
  });

  // After-line texts of the TF Insight debugger's stop decoration (CSS content, as above).
  const stopTexts = () => page.evaluate(() => [...new Set(
    [...document.querySelectorAll(".editor-group-container.active .monaco-editor .view-lines span")]
      .map((el) => getComputedStyle(el, "::after").content)
      .filter((c) => c && c.includes("TF Insight:")))]);
  const debugToolbar = page.locator(".debug-toolbar");
  // The floating toolbar shows Continue while paused and Pause while running.
  const paused = () => debugToolbar.locator('.action-label[aria-label^="Continue"]').first();
  /** Wait until the debugger stops at `line` with an annotation matching `pattern`. */
  const stoppedAt = async (line, pattern) => {
    await paused().waitFor({ state: "visible", timeout: 180_000 });
    await page.locator(".statusbar-item", { hasText: `Ln ${line},` }).first().waitFor({ state: "visible", timeout: 15_000 });
    let texts = [];
    for (let tries = 0; tries < 100 && !texts.some((t) => pattern.test(t)); tries++) {
      await page.waitForTimeout(200);
      texts = await stopTexts();
    }
    if (!texts.some((t) => pattern.test(t))) {
      throw new Error(`no stop annotation matching ${pattern} at line ${line}: ${JSON.stringify(texts).slice(0, 300)}`);
    }
    return texts.find((t) => pattern.test(t)).replace(/^"|"$/g, "");
  };
  /** Continue (F5) until the session ends; the number of further stops. */
  const continueToEnd = async () => {
    for (let stops = 0; stops < 20; stops++) {
      await page.keyboard.press("F5");
      await paused().waitFor({ state: "hidden", timeout: 15_000 }).catch(() => undefined);
      const next = await Promise.race([
        debugToolbar.waitFor({ state: "hidden", timeout: 180_000 }).then(() => "ended", () => "timeout"),
        paused().waitFor({ state: "visible", timeout: 180_000 }).then(() => "stopped", () => "timeout"),
      ]);
      if (next === "ended") {
        return stops;
      }
      if (next === "timeout") {
        break;
      }
    }
    throw new Error("the debug session did not end");
  };

  let ifLine = 0;
  await step("debug-breakpoint", async () => {
    await escapeAll();
    await openFile("graph_debug.py");
    ({ line: ifLine } = await lineNumberOf("if tf.reduce_sum"));
    // F9 works once VS Code knows a debugger for Python files (ours): soon after the window
    // opens, not at once. It toggles, so press it again only while no breakpoint shows.
    const breakpoint = activeEditor().locator(".codicon-debug-breakpoint").first();
    for (let tries = 0; tries < 15 && !(await breakpoint.isVisible()); tries++) {
      await goTo(ifLine, 5);
      await page.keyboard.press("F9");
      await breakpoint.waitFor({ state: "visible", timeout: 2_000 }).catch(() => undefined);
    }
    await breakpoint.waitFor({ state: "visible", timeout: 1_000 });
    await runCommand("TF Insight: Debug Graph Code (Current File)");
    await debugToolbar.waitFor({ state: "visible", timeout: 180_000 });
    const text = await stoppedAt(ifLine, /graph \(step\).*trace #1/);
    await screenshot("debug-stopped-in-tf-function");
    return `stopped at line ${ifLine} of the tf.function: ${text}`;
  });

  await step("debug-retrace", async () => {
    await page.keyboard.press("F5");
    const text = await stoppedAt(ifLine, /trace #2 \(traced before: 1\)/);
    await page.keyboard.press("Control+Shift+Y");  // the Debug Console, with the full annotations
    const console = page.locator(".repl .monaco-list-row", { hasText: "traced before with" }).first();
    await console.waitFor({ state: "visible", timeout: 15_000 });
    await screenshot("debug-retrace-console");
    const further = await continueToEnd();
    if (further !== 0) {
      throw new Error(`${further} more stops: the third call (shape 3 again) must not retrace`);
    }
    return `${text}; console: ${(await console.innerText()).replace(/\s+/g, " ").slice(0, 120)}; ended`;
  });

  await step("debug-eagerly", async () => {
    await openFile("graph_debug.py");
    await runCommand("TF Insight: Debug Eagerly (Current File)");
    await page.locator(".notification-toast", { hasText: "Debugging eagerly" }).first().waitFor({ state: "visible", timeout: 60_000 });
    const text = await stoppedAt(ifLine, /TF Insight: eager/);
    await screenshot("debug-eagerly");
    const further = await continueToEnd();
    if (further !== 2) {
      throw new Error(`${1 + further} stops, not one per call (3)`);
    }
    return `${text}; stopped once per call (3), ended`;
  });

  // Last, because it restarts the server: an interpreter with no packages at all (not even
  // TensorFlow) runs the server from the extension's bundle, and stays empty.
  const fresh = process.env.TFI_E2E_FRESH_PYTHON;
  const machineSettings = process.env.TFI_E2E_MACHINE_SETTINGS;
  if (fresh && machineSettings) {
    await step("bundled-server", async () => {
      await escapeAll();
      const status = page.locator(".statusbar-item", { hasText: "TFI" }).first();
      writeFileSync(machineSettings, JSON.stringify({ "tfInsight.interpreter": fresh }, null, 2));
      await page.locator(".statusbar-item", { hasText: /TFI (stopped|starting)/ }).first().waitFor({ state: "visible", timeout: 60_000 });
      await page.locator(".statusbar-item", { hasText: /TFI ready.* [1-9]\d* findings?/ }).first().waitFor({ state: "visible", timeout: 120_000 });
      // the restart cleared the findings: these come from the server the fresh interpreter runs
      await screenshot("bundled-server");
      const imports = spawnSync(fresh, ["-c", "import pygls"], { encoding: "utf8" });
      if (imports.status === 0) {
        throw new Error(`${fresh} can import pygls: something was installed into it`);
      }
      return `${(await status.innerText()).replace(/\s+/g, " ")} with ${fresh}, which has no pygls: ${imports.stderr.trim().split("\n").pop()}`;
    });
  }
} catch (err) {
  console.error(String(err));
} finally {
  await finish();
}
