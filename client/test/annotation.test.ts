import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import {
  annotationMarkdown,
  annotationPlace,
  annotationText,
  chainPositions,
  groupAnnotations,
  modeText,
  probePlace,
  stepTitle,
  walkStops,
} from "../src/core/annotation";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { SessionResult, SessionStep, Verdict } from "../src/core/protocol";

/** A real session result (RematScope + Dropout + fit, Keras 3 on TF 2.21), each step with the
 * annotation the core built (its words are tested in tests/session/test_annotation.py). */
const real = JSON.parse(readFileSync(join(__dirname, "..", "..", "..", "client", "test", "data", "remat_trace.json"), "utf8")) as SessionResult & {
  steps: SessionStep[];
  verdict: Verdict;
};

const LAYER_PY = "/venv/lib/python3.11/site-packages/keras/src/layers/layer.py";

/** A step as the session engine streams it for the RematScope + Dropout + fit script. */
const dropoutStep: SessionStep = {
  probe: "keras.src.layers.layer.Layer.__call__",
  location: { path: LAYER_PY, line: 901 },
  user_frame: { path: "/ws/remat_dropout.py", line: 14, function: "<module>" },
  executing_eagerly: false,
  graph: "one_step_on_data",
  layer: { class: "Dropout", name: "dropout" },
  call_fn: {
    repr: "<tensorflow.python.ops.custom_gradient.Bind object at 0x7efe268b3e90>",
    type: "tensorflow.python.ops.custom_gradient.Bind",
    id: 1,
    chain: [
      { kind: "custom_gradient Bind", type: "tensorflow.python.ops.custom_gradient.Bind", repr: "<tensorflow.python.ops.custom_gradient.Bind object at 0x7efe268b3e90>" },
      { kind: "tf.recompute_grad wrapper", type: "function", repr: "<function recompute_grad.<locals>.inner at 0x7efe268d5da0>" },
    ],
  },
  args: ["<tf.Tensor 'x:0' shape=(None, 8) dtype=float32>"],
  kwargs: { training: true },
  annotation: {
    title: "Dropout.__call__",
    mode: "graph (one_step_on_data)",
    label: "⟵ Dropout.__call__ · graph (one_step_on_data) · call_fn=Bind(recompute_grad) · kwargs: training=True",
    markdown: "**TF Insight — step 3: Dropout.\\_\\_call\\_\\_**",
  },
};

describe("what the core built", () => {
  it("is shown as it came: label, title, mode and hover", () => {
    assert.equal(annotationText(dropoutStep), dropoutStep.annotation?.label);
    assert.equal(stepTitle(dropoutStep), "Dropout.__call__");
    assert.equal(modeText(dropoutStep), "graph (one_step_on_data)");
    assert.equal(annotationMarkdown(dropoutStep), dropoutStep.annotation?.markdown);
  });

  it("a step without one still has a title and a label", () => {
    assert.equal(annotationText({ probe: "keras.Layer.__call__" }), "⟵ keras.Layer.__call__");
    assert.equal(modeText({ annotation: { title: "t", mode: "", label: "l", markdown: "" } }), undefined);
    assert.equal(annotationMarkdown({}), "");
  });
});

describe("placement", () => {
  it("puts the annotation at the user frame's line (0-based)", () => {
    assert.deepEqual(annotationPlace(dropoutStep), { path: "/ws/remat_dropout.py", line: 13 });
    assert.deepEqual(probePlace(dropoutStep), { path: LAYER_PY, line: 900 });
  });

  it("falls back to the probe location, and rejects steps without a place", () => {
    assert.deepEqual(annotationPlace({ location: { path: "/lib.py", line: 3 } }), { path: "/lib.py", line: 2 });
    assert.equal(annotationPlace({}), undefined);
    assert.equal(annotationPlace({ user_frame: { path: "/x.py", line: 0 } }), undefined);
  });

  it("groups repeated hits on one line with a count, latest text wins", () => {
    const eager: SessionStep = { ...dropoutStep, executing_eagerly: true, graph: null };
    const other: SessionStep = { ...dropoutStep, user_frame: { path: "/ws/remat_dropout.py", line: 20 } };
    const grouped = groupAnnotations([eager, dropoutStep, other]);
    const list = grouped.get("/ws/remat_dropout.py");
    assert.ok(list);
    assert.equal(list.length, 2);
    assert.equal(list[0]?.line, 13);
    assert.deepEqual(list[0]?.steps, [0, 1]);
    assert.ok(list[0]?.text.includes("graph (one_step_on_data)"));
    assert.ok(list[0]?.text.endsWith("(2 steps)"));
    assert.equal(list[1]?.line, 19);
  });
});

describe("a traced notebook", () => {
  it("keeps each cell's lines apart, the verdict in its cell", () => {
    const inCell = (cell: number, line: number): SessionStep => ({
      ...dropoutStep, location: null, user_frame: { path: "/ws/nb.ipynb", line, cell } as unknown as SessionStep["user_frame"],
    });
    assert.deepEqual(annotationPlace(inCell(2, 7)), { path: "/ws/nb.ipynb", line: 6, cell: 2 });
    const verdict = { rule: "TFI013", title: "bool", user_frame: { path: "/ws/nb.ipynb", line: 3, cell: 2 } } as unknown as Verdict;
    const list = groupAnnotations([inCell(2, 7), inCell(3, 7)], verdict).get("/ws/nb.ipynb") ?? [];
    assert.deepEqual(list.map((a) => [a.cell, a.line, a.verdict !== undefined]).sort(), [[2, 2, true], [2, 6, false], [3, 6, false]]);
    const stops = walkStops([inCell(2, 7)], verdict);
    assert.deepEqual(stops.map((s) => [s.kind, s.cell, s.line]), [["user", 2, 6], ["verdict", 2, 2]]);
  });
});

describe("walkStops", () => {
  it("visits the user line then the library line of each step, then the verdict", () => {
    const stops = walkStops([dropoutStep], { rule: "TFI001", title: "kwargs through custom_gradient" });
    assert.deepEqual(
      stops.map((s) => [s.kind, s.path, s.line]),
      [
        ["user", "/ws/remat_dropout.py", 13],
        ["library", LAYER_PY, 900],
        ["verdict", LAYER_PY, 900],
      ],
    );
  });
});

describe("a real session (RematScope + Dropout + fit)", () => {
  it("annotates each user line; the fit line shows the raising step", () => {
    const byFile = groupAnnotations(real.steps);
    const script = "/work/main/examples/remat_scope_dropout.py";
    const lines = (byFile.get(script) ?? []).map((a) => [a.line + 1, a.text]);
    assert.deepEqual(lines, [
      [11, "⟵ Dense.__call__ · eager · call_fn=Layer.symbolic_call"],
      [12, "⟵ Dropout.__call__ · eager · call_fn=Layer.symbolic_call · kwargs: training=False"],
      [13, "⟵ Dense.__call__ · eager · call_fn=Layer.symbolic_call"],
      [16, "⟵ custom_gradient._graph_mode_decorator (Dense) · graph (one_step_on_data) · call_fn=recompute_grad(Dense.call) · kwargs: training=True · raises ValueError  (14 steps)"],
    ]);
  });

  it("walks the verdict's chain, user line then library line, then the verdict", () => {
    assert.deepEqual(chainPositions(real.steps, real.verdict), [13, 14, 15, 16]);
    const stops = walkStops(real.steps, real.verdict);
    assert.equal(stops.length, 2 * 4 + 1);
    assert.deepEqual(stops.slice(0, 2).map((s) => [s.kind, s.line + 1]), [["user", 16], ["library", 63]]);
    assert.ok(stops[1]?.path.endsWith("keras/src/ops/operation.py"));
    assert.ok(stops[7]?.path.endsWith("tensorflow/python/ops/custom_gradient.py"));
    assert.equal(stops[8]?.kind, "verdict");
    assert.equal(real.verdict.rule, "TFI001");
  });

  it("annotates the library lines the probes hit (Keras's __call__, TF's _graph_mode_decorator)", () => {
    const byFile = groupAnnotations(real.steps);
    const decorator = [...byFile.entries()].find(([path]) => path.endsWith("tensorflow/python/ops/custom_gradient.py"));
    assert.ok(decorator, "no annotation in custom_gradient.py");
    const raising = decorator[1].find((a) => a.text.includes("raises ValueError"));
    assert.ok(raising?.text.includes("kwargs: training=True"), JSON.stringify(decorator[1]));
  });

  it("the verdict's user line leads with the verdict, and the walk ends there", () => {
    const script = "/work/main/examples/remat_scope_dropout.py";
    const verdict: Verdict = { ...real.verdict, user_frame: { path: script, line: 9, function: "<module>" } };
    const verdictLine = (groupAnnotations(real.steps, verdict).get(script) ?? []).find((a) => a.line === 8);
    assert.ok(verdictLine?.text.startsWith("⚑ TFI001: "), verdictLine?.text);
    assert.equal(verdictLine?.verdict, verdict);
    const last = walkStops(real.steps, verdict).at(-1);
    assert.deepEqual([last?.kind, last?.path, last?.line], ["verdict", script, 8]);
  });

  it("the hover shows the raise", () => {
    const md = annotationMarkdown(real.steps[16] ?? {});
    assert.ok(md.includes("custom_gradient rejects keyword arguments in graph mode"));
    assert.ok(md.includes("tf.recompute_grad wrapper"));
  });
});
