import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import { escapeHtml, explanationHtml, frameLinks, inlineMarkdown, shortPath } from "../src/core/explainHtml";
import type { Explanation } from "../src/core/protocol";

const explanation: Explanation = {
  id: "custom-gradient-kwargs",
  rule: "TFI001",
  title: "custom_gradient called with keyword arguments in graph mode",
  summary: "`Dropout.call` got `training=True` <in graph>",
  cause: "Keras passes **training** as a keyword.",
  fix: "- wrap an inner positional function\n- or drop the kwargs",
  exception: { type: "ValueError", message: "The custom_gradient decorator currently supports keywords arguments only when eager execution is enabled." },
  user_frame: { path: "/ws/train.py", line: 12, function: "<module>" },
  frames: [
    { path: "/ws/train.py", line: 12, function: "<module>" },
    { path: "/venv/lib/python3.11/site-packages/tensorflow/python/ops/custom_gradient.py", line: 343, function: "_graph_mode_decorator" },
  ],
  findings: [],
  links: ["https://www.tensorflow.org/api_docs/python/tf/custom_gradient", "javascript:alert(1)"],
};

describe("explanationHtml", () => {
  it("renders sections, escapes text and links the frames", () => {
    const html = explanationHtml(explanation, { nonce: "N", cspSource: "vscode-resource:", fixAvailable: true, fixLabel: "Apply quick fix: wrap" });
    assert.ok(html.includes("<h1>custom_gradient called with keyword arguments in graph mode</h1>"));
    assert.ok(html.includes("&lt;in graph&gt;"));
    assert.ok(html.includes("<code>training=True</code>"));
    assert.ok(html.includes("<strong>training</strong>"));
    assert.ok(html.includes('data-frame="1"'));
    assert.ok(html.includes("tensorflow/python/ops/custom_gradient.py:343"));
    assert.ok(html.includes('id="apply-fix"'));
    assert.ok(html.includes("script-src 'nonce-N'"));
    assert.ok(html.includes('<a href="https://www.tensorflow.org/api_docs/python/tf/custom_gradient">'));
    assert.ok(!html.includes("javascript:"));
  });

  it("has no fix button without a fix, and falls back to markdown HTML", () => {
    assert.ok(!explanationHtml(explanation, { nonce: "N", cspSource: "x", fixAvailable: false }).includes(`id="apply-fix"`));
    assert.ok(explanationHtml(null, { nonce: "N", cspSource: "x", fixAvailable: false, markdownHtml: "<p>rule doc</p>" }).includes("<p>rule doc</p>"));
  });

  it("lists the related findings with what to do", () => {
    const html = explanationHtml(
      { ...explanation, findings: [{ code: "TFI001", message: "`B.call` is wrapped", path: "/ws/train.py", line: 3, detail: "why", help: "apply it to an inner function" }] },
      { nonce: "N", cspSource: "x", fixAvailable: false },
    );
    assert.ok(html.includes("<code>TFI001</code> `B.call` is wrapped — "));
    assert.ok(html.includes('<span class="help">apply it to an inner function</span>'));
  });

  it("marks user frames", () => {
    const links = frameLinks(explanation);
    assert.deepEqual(links.map((l) => l.user), [true, false]);
  });

  it("helpers", () => {
    assert.equal(escapeHtml(`<a href="x">'`), "&lt;a href=&quot;x&quot;&gt;&#39;");
    assert.equal(shortPath("/v/lib/python3.11/site-packages/keras/src/layers/layer.py"), "keras/src/layers/layer.py");
    assert.equal(inlineMarkdown("- a\n- `b`"), "<ul><li>a</li><li><code>b</code></li></ul>");
    // A fenced block keeps its blank lines and indentation, and is not Markdown-formatted.
    assert.equal(
      inlineMarkdown("Fix:\n\n```python\nclass B:\n\n    def call(self, **kw): pass\n```\nafter"),
      "<p>Fix:</p>\n<pre><code>class B:\n\n    def call(self, **kw): pass</code></pre>\n<p>after</p>",
    );
  });
});
