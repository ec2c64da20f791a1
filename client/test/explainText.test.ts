import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import { cellOutputText, looksLikeError, normaliseText, pickExplainText } from "../src/core/explainText";

const TRACEBACK = `Traceback (most recent call last):
  File "/ws/train.py", line 12, in <module>
    model.fit(x, y)
ValueError: The custom_gradient decorator currently supports keywords arguments only when eager execution is enabled.`;

describe("pickExplainText", () => {
  it("uses the editor selection first", () => {
    assert.deepEqual(pickExplainText({ editorSelection: "sel", terminalSelection: TRACEBACK, clipboard: TRACEBACK }), { text: "sel", source: "editor" });
  });

  it("then the terminal selection, normalised", () => {
    assert.deepEqual(pickExplainText({ editorSelection: "  \n", terminalSelection: "A\r\nB\r\n\r\n", clipboard: TRACEBACK }), { text: "A\nB", source: "terminal" });
  });

  it("then the clipboard, but only when it looks like an error", () => {
    assert.deepEqual(pickExplainText({ clipboard: TRACEBACK }), { text: TRACEBACK, source: "clipboard" });
    assert.equal(pickExplainText({ clipboard: "import numpy as np" }), undefined);
  });

  it("asks (undefined) when nothing is selected and the clipboard is empty", () => {
    assert.equal(pickExplainText({}), undefined);
    assert.equal(pickExplainText({ editorSelection: "", terminalSelection: null, clipboard: "" }), undefined);
  });
});

describe("looksLikeError", () => {
  it("recognises tracebacks and bare TF messages", () => {
    assert.ok(looksLikeError(TRACEBACK));
    assert.ok(looksLikeError("TypeError: An op outside of the function building code is being passed a \"Graph\" tensor."));
    assert.ok(looksLikeError('  File "x.py", line 3, in f'));
    assert.ok(!looksLikeError("hello world"));
  });

  it("normalises CRLF and trailing blanks", () => {
    assert.equal(normaliseText("a\r\nb\r\n  \n"), "a\nb");
  });
});

describe("cellOutputText", () => {
  const error = (stack: string): { mime: string; text: string } => ({
    mime: "application/vnd.code.notebook.error",
    text: JSON.stringify({ name: "ValueError", message: "bad", stack }),
  });

  it("joins streams and error tracebacks in output order, without rich outputs", () => {
    const text = cellOutputText([
      { mime: "application/vnd.code.notebook.stdout", text: "WARNING:tensorflow:5 out of the last 5 calls\n" },
      { mime: "text/markdown", text: "**TF Insight: ...**" },
      error("\u001b[31mValueError\u001b[0m: bad"),
    ]);
    assert.equal(text, "WARNING:tensorflow:5 out of the last 5 calls\n\n\u001b[31mValueError\u001b[0m: bad");
  });

  it("falls back to name and message, or the raw data when it is not JSON", () => {
    assert.equal(cellOutputText([error("")]), "ValueError: bad");
    assert.equal(cellOutputText([{ mime: "application/vnd.code.notebook.error", text: "oops" }]), "oops");
    assert.equal(cellOutputText([{ mime: "image/png", text: "..." }]), "");
  });

  it("is picked after the selections and before the clipboard", () => {
    assert.deepEqual(pickExplainText({ notebookOutput: "E: x", clipboard: TRACEBACK }), { text: "E: x", source: "notebook" });
    assert.deepEqual(pickExplainText({ terminalSelection: "T", notebookOutput: "E: x" }), { text: "T", source: "terminal" });
  });
});
