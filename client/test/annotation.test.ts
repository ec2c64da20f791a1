import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import {
  annotationMarkdown,
  annotationPlace,
  annotationText,
  groupAnnotations,
  probePlace,
  renderKwargs,
  shortRepr,
  stepTitle,
  walkStops,
} from "../src/core/annotation";
import type { SessionStep } from "../src/core/protocol";

const LAYER_PY = "/venv/lib/python3.11/site-packages/keras/src/layers/layer.py";

/** A step as the session engine streams it for the RematScope + Dropout + fit script. */
const dropoutStep: SessionStep = {
  probe: "keras.src.layers.layer.Layer.__call__",
  location: { path: LAYER_PY, line: 901 },
  user_frame: { path: "/ws/remat_dropout.py", line: 14, function: "<module>" },
  executing_eagerly: false,
  graph: "one_step_on_data",
  layer: { class: "Dropout", name: "dropout" },
  call_fn: { repr: "<function Bind(recompute_grad) at 0x7f3a2c1d5e40>", type: "function", id: 1, chain: ["Bind(recompute_grad)", "Dropout.call"] },
  args: ["<tf.Tensor 'x:0' shape=(None, 8) dtype=float32>"],
  kwargs: { training: true },
};

describe("annotationText", () => {
  it("renders the step like the issue's example", () => {
    assert.equal(
      annotationText(dropoutStep),
      "⟵ Dropout.__call__ · graph (one_step_on_data) · call_fn=Bind(recompute_grad) · kwargs: training=True",
    );
  });

  it("handles eager steps, graph objects, missing layers and empty kwargs", () => {
    assert.equal(annotationText({ probe: "tensorflow.python.ops.custom_gradient._graph_mode_decorator", executing_eagerly: true, kwargs: {} }), "⟵ custom_gradient._graph_mode_decorator · eager");
    assert.equal(annotationText({ probe: "Layer.__call__", layer: { class: "Dense" }, executing_eagerly: false, graph: { name: "train_function" } }), "⟵ Dense.__call__ · graph (train_function)");
    assert.equal(annotationText({ executing_eagerly: false }), "⟵ step · graph");
  });

  it("keeps long values short", () => {
    const text = annotationText({ ...dropoutStep, kwargs: { mask: "x".repeat(500) } });
    assert.ok(text.length <= 160, `too long: ${text.length}`);
    assert.ok(text.endsWith("…"));
  });
});

describe("helpers", () => {
  it("shortRepr strips function reprs", () => {
    assert.equal(shortRepr("<function Bind(recompute_grad) at 0x7f00>"), "Bind(recompute_grad)");
    assert.equal(shortRepr("<bound method Dropout.call of <Dropout name=dropout>> at 0x1>"), "Dropout.call");
    assert.equal(shortRepr("Bind(recompute_grad)"), "Bind(recompute_grad)");
  });

  it("renderKwargs accepts dicts, pair lists and repr objects", () => {
    assert.deepEqual(renderKwargs({ training: true, rate: 0.5, mask: null }), ["training=True", "rate=0.5", "mask=None"]);
    assert.deepEqual(renderKwargs([["training", "True"]]), ["training=True"]);
    assert.deepEqual(renderKwargs({ x: { repr: "<tf.Tensor>" } }), ["x=<tf.Tensor>"]);
    assert.deepEqual(renderKwargs(null), []);
  });

  it("stepTitle uses the layer class with the probe method", () => {
    assert.equal(stepTitle(dropoutStep), "Dropout.__call__");
    assert.equal(stepTitle({ probe: "a.b.c.d" }), "c.d");
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
    assert.ok(list[0]?.text.endsWith("(×2)"));
    assert.equal(list[1]?.line, 19);
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

describe("annotationMarkdown", () => {
  it("lists everything the step carries", () => {
    const md = annotationMarkdown(dropoutStep, 2);
    for (const needle of ["step 3", "Dropout", "one_step_on_data", "Bind(recompute_grad)", "training=True", "remat_dropout.py:14", "layer.py:901"]) {
      assert.ok(md.includes(needle), `missing ${needle} in\n${md}`);
    }
  });
});
