// HTML of the explanation panel, from the server's structured explanation. Pure; the webview
// script posts {type: "open", index} / {type: "applyFix"} back to the extension.
import type { Explanation, Verdict } from "./protocol";

export function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");
}

function inline(s: string): string {
  return escapeHtml(s)
    .replace(/`([^`]+)`/g, "<code>$1</code>")
    .replace(/\*\*([^*]+)\*\*/g, "<strong>$1</strong>");
}

/** Minimal Markdown: fenced code blocks, paragraphs, "- " lists, `code` and **bold**; all escaped. */
export function inlineMarkdown(text: string): string {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const out: string[] = [];
  let para: string[] = [];
  let list: string[] = [];
  const flush = (): void => {
    if (para.length > 0) {
      out.push(`<p>${para.map(inline).join("<br>")}</p>`);
      para = [];
    }
    if (list.length > 0) {
      out.push(`<ul>${list.map((l) => `<li>${inline(l)}</li>`).join("")}</ul>`);
      list = [];
    }
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    if (/^\s*```/.test(line)) {
      flush();
      const code: string[] = [];
      i++;
      while (i < lines.length && !/^\s*```/.test(lines[i] ?? "")) {
        code.push(lines[i] ?? "");
        i++;
      }
      out.push(`<pre><code>${escapeHtml(code.join("\n"))}</code></pre>`);
    } else if (/^\s*[-*] /.test(line)) {
      if (para.length > 0) {
        const keep = list;
        list = [];
        flush();
        list = keep;
      }
      list.push(line.replace(/^\s*[-*] /, ""));
    } else if (line.trim() === "") {
      flush();
    } else {
      if (list.length > 0) {
        flush();
      }
      para.push(line);
    }
  }
  flush();
  return out.join("\n");
}

export interface FrameLink {
  path: string;
  line: number;
  function?: string | undefined;
  user: boolean;
  cell?: string | undefined;
}

/** Where a frame is, as a user reads it: `train.py:12`, or `notebook cell In[3], line 5`. */
export function frameLabel(f: { path: string; line: number; cell?: string | null | undefined }): string {
  return f.cell ? `notebook cell ${f.cell}, line ${f.line}` : `${shortPath(f.path)}:${f.line}`;
}

/** Frames to list: the server's frames (user frames marked), else just the user frame. */
export function frameLinks(e: Explanation): FrameLink[] {
  const out: FrameLink[] = [];
  const userPath = e.user_frame?.path;
  for (const f of e.frames ?? []) {
    if (typeof f.path === "string" && typeof f.line === "number") {
      const user = f.user ?? (f.library !== undefined ? !f.library : f.path === userPath);
      out.push({ path: f.path, line: f.line, function: f.function, user, cell: f.cell ?? undefined });
    }
  }
  if (out.length === 0 && e.user_frame) {
    out.push({ path: e.user_frame.path, line: e.user_frame.line, function: e.user_frame.function, user: true, cell: e.user_frame.cell ?? undefined });
  }
  return out;
}

function section(title: string, body: string | undefined): string {
  return body && body.trim() ? `<section><h2>${escapeHtml(title)}</h2>${inlineMarkdown(body)}</section>` : "";
}

export interface PanelOptions {
  nonce: string;
  cspSource: string;
  /** Whether a related quick fix was found in the workspace diagnostics. */
  fixAvailable: boolean;
  fixLabel?: string;
  /** Fallback when the server gave no structured explanation. */
  markdownHtml?: string;
}

export function explanationHtml(e: Explanation | null | undefined, o: PanelOptions): string {
  let body: string;
  if (!e) {
    body = o.markdownHtml ?? "<p>No explanation.</p>";
  } else {
    const exc = e.exception;
    const frames = frameLinks(e);
    const frameItems = frames
      .map(
        (f, i) =>
          `<li class="${f.user ? "user" : "lib"}"><a href="#" data-frame="${i}" title="Open ${escapeHtml(f.path)}:${f.line}">${escapeHtml(frameLabel(f))}</a>${f.function ? ` in <code>${escapeHtml(f.function)}</code>` : ""}${f.user ? ' <span class="tag">your code</span>' : ""}</li>`,
      )
      .join("");
    const userFrame = e.user_frame
      ? `<p class="where">In your code: <a href="#" data-user-frame="1">${escapeHtml(frameLabel(e.user_frame))}</a>${
          e.user_frame.function ? ` in <code>${escapeHtml(e.user_frame.function)}</code>` : ""
        }</p>`
      : "";
    const findings = (e.findings ?? [])
      .map((f) => `<li><code>${escapeHtml(f.code ?? "")}</code> ${escapeHtml(f.message ?? "")}${f.path ? ` — ${escapeHtml(shortPath(f.path))}:${f.line ?? "?"}` : ""}${f.help ? `<br><span class="help">${escapeHtml(f.help)}</span>` : ""}</li>`)
      .join("");
    body = [
      `<header><div class="rule">${escapeHtml([e.rule, e.id].filter(Boolean).join(" · "))}</div><h1>${escapeHtml(e.title ?? "Explanation")}</h1></header>`,
      exc && (exc.type || exc.message) ? `<pre class="exception"><strong>${escapeHtml(exc.type ?? "")}</strong>${exc.message ? ": " + escapeHtml(exc.message) : ""}</pre>` : "",
      userFrame,
      section("What happened", e.summary),
      section("Why", e.cause),
      section("Fix", e.fix),
      e.confidence
        ? `<p class="confidence">How sure: <strong>${escapeHtml(e.confidence)}</strong>${
            (e.evidence ?? []).length > 0 ? ` — ${escapeHtml((e.evidence ?? []).join("; "))}` : ""
          }</p>`
        : "",
      o.fixAvailable ? `<p><button id="apply-fix">${escapeHtml(o.fixLabel ?? "Apply quick fix")}</button></p>` : "",
      findings ? `<section><h2>Related findings in your workspace</h2><ul>${findings}</ul></section>` : "",
      (e.notes ?? []).length > 0 ? `<section><h2>Notes</h2><ul>${(e.notes ?? []).map((n) => `<li>${escapeHtml(n)}</li>`).join("")}</ul></section>` : "",
      (e.links ?? []).length > 0
        ? `<section><h2>Learn more</h2><ul>${(e.links ?? [])
            .filter((l) => /^https?:\/\//.test(l))
            .map((l) => `<li><a href="${escapeHtml(l)}">${escapeHtml(l)}</a></li>`)
            .join("")}</ul></section>`
        : "",
      frameItems ? `<section><h2>Frames</h2><ol class="frames">${frameItems}</ol></section>` : "",
    ].join("\n");
  }
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src ${o.cspSource} 'nonce-${o.nonce}'; script-src 'nonce-${o.nonce}';">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<style nonce="${o.nonce}">
body { font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); color: var(--vscode-foreground); padding: 0 1.5em 2em; max-width: 60em; line-height: 1.5; }
h1 { font-size: 1.5em; margin: 0.2em 0 0.6em; }
h2 { font-size: 1.1em; margin: 1.2em 0 0.3em; border-bottom: 1px solid var(--vscode-panel-border); padding-bottom: 0.2em; }
.rule { color: var(--vscode-descriptionForeground); margin-top: 1em; font-family: var(--vscode-editor-font-family); }
code, pre { font-family: var(--vscode-editor-font-family); font-size: var(--vscode-editor-font-size); }
code { background: var(--vscode-textCodeBlock-background); padding: 0 0.25em; border-radius: 3px; }
pre { background: var(--vscode-textCodeBlock-background); padding: 0.6em 0.8em; white-space: pre-wrap; word-break: break-word; border-radius: 4px; }
pre.exception { border-left: 3px solid var(--vscode-editorError-foreground); }
a { color: var(--vscode-textLink-foreground); text-decoration: none; } a:hover { text-decoration: underline; }
ol.frames li.lib { color: var(--vscode-descriptionForeground); }
ol.frames li.user { font-weight: 600; }
.tag { font-size: 0.8em; padding: 0 0.4em; border-radius: 3px; background: var(--vscode-badge-background); color: var(--vscode-badge-foreground); font-weight: normal; }
.help { color: var(--vscode-descriptionForeground); }
button { background: var(--vscode-button-background); color: var(--vscode-button-foreground); border: none; padding: 0.4em 1em; cursor: pointer; border-radius: 2px; }
button:hover { background: var(--vscode-button-hoverBackground); }
</style></head>
<body>
${body}
<script nonce="${o.nonce}">
const vscode = acquireVsCodeApi();
document.querySelectorAll('a[data-frame]').forEach(a => a.addEventListener('click', ev => { ev.preventDefault(); vscode.postMessage({ type: 'open', frame: Number(a.dataset.frame) }); }));
document.querySelectorAll('a[data-user-frame]').forEach(a => a.addEventListener('click', ev => { ev.preventDefault(); vscode.postMessage({ type: 'openUserFrame' }); }));
const fix = document.getElementById('apply-fix');
if (fix) fix.addEventListener('click', () => vscode.postMessage({ type: 'applyFix' }));
</script>
</body></html>`;
}

/** Show the tail of long library paths: `…/keras/src/layers/layer.py`. */
export function shortPath(p: string): string {
  const m = /(?:site-packages|dist-packages)\/(.+)$/.exec(p);
  if (m?.[1]) {
    return m[1];
  }
  return p;
}

/** A verdict shown in the same panel. */
export function verdictExplanation(v: Verdict, extra: Partial<Explanation> = {}): Explanation {
  return {
    id: v.id ?? undefined,
    rule: v.rule ?? null,
    title: v.title ?? v.rule ?? "Verdict",
    summary: v.summary,
    cause: v.cause ?? undefined,
    fix: v.fix ?? undefined,
    ...extra,
  };
}
