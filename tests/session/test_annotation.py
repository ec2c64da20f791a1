"""The one builder of what editors show for a step (`tf_insight.session.annotation`): the
inline label, title, mode and hover Markdown, on hand-made steps and on a real session's
(`client/test/data/remat_trace.json`: RematScope + Dropout + fit, Keras 3 on TF 2.21)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tf_insight.session import Step
from tf_insight.session.annotation import (
    call_fn_label,
    label,
    markdown,
    render_kwargs,
    render_value,
    short_repr,
    title,
)

REAL = Path(__file__).resolve().parents[2] / "client" / "test" / "data" / "remat_trace.json"
LAYER_PY = "/venv/lib/python3.11/site-packages/keras/src/layers/layer.py"


def step(**fields: Any) -> Step:
    """A step with what `fields` give (the annotation reads partial ones too)."""
    return Step.from_record(fields.pop("index", 0), {"probe": "", "location": {}, **fields})


DROPOUT = step(
    index=2, probe="keras.src.layers.layer.Layer.__call__",
    location={"path": LAYER_PY, "line": 901},
    user_frame={"path": "/ws/remat_dropout.py", "line": 14, "function": "<module>"},
    executing_eagerly=False, graph="one_step_on_data", layer={"class": "Dropout", "name": "dropout"},
    call_fn={"repr": "<tensorflow.python.ops.custom_gradient.Bind object at 0x7efe268b3e90>",
             "type": "tensorflow.python.ops.custom_gradient.Bind", "chain": [
                 {"kind": "custom_gradient Bind", "repr": "<tensorflow.python.ops.custom_gradient."
                  "Bind object at 0x7efe268b3e90>"},
                 {"kind": "tf.recompute_grad wrapper", "type": "function",
                  "repr": "<function recompute_grad.<locals>.inner at 0x7efe268d5da0>"}]},
    args=[{"type": "SymbolicTensor", "shape": "(None, 8)", "dtype": "float32"}],
    kwargs={"training": True})


def real_steps() -> list[Step]:
    records = json.loads(REAL.read_text(encoding="utf-8"))["steps"]
    return [Step.from_record(i, record) for i, record in enumerate(records)]


def test_the_label_reads_like_the_seed_authors_prints() -> None:
    assert label(DROPOUT) == ("⟵ Dropout.__call__ · graph (one_step_on_data) · "
                              "call_fn=Bind(recompute_grad) · kwargs: training=True")
    assert label(step(probe="tensorflow.python.ops.custom_gradient._graph_mode_decorator",
                      executing_eagerly=True, graph="eager")) == (
        "⟵ custom_gradient._graph_mode_decorator · eager")
    assert label(step(probe="keras.Layer.__call__", layer={"class": "Dense"},
                      executing_eagerly=False, graph="train_function")) == (
        "⟵ Dense.__call__ · graph (train_function)")
    assert label(step(executing_eagerly=False)) == "⟵ step · graph"
    long = label(step(probe="keras.Layer.__call__", kwargs={"mask": "x" * 500}))
    assert len(long) <= 160 and long.endswith("…")


def test_a_real_sessions_labels_and_call_fn_chains() -> None:
    steps = real_steps()
    assert [call_fn_label(s.call_fn) for s in (steps[12], steps[13], steps[16])] == [
        "Functional.call", "Bind(recompute_grad(Dense.call))", "recompute_grad(Dense.call)"]
    assert label(steps[16]) == (
        "⟵ custom_gradient._graph_mode_decorator (Dense) · graph (one_step_on_data) · "
        "call_fn=recompute_grad(Dense.call) · kwargs: training=True · raises ValueError")
    assert label(steps[0]).startswith("⟵ Dense.__call__ · eager · call_fn=Layer.symbolic_call")
    hover = markdown(steps[16])
    assert "custom_gradient rejects keyword arguments in graph mode" in hover
    assert "tf.recompute_grad wrapper" in hover


def test_the_hover_lists_everything_the_step_carries() -> None:
    hover = markdown(DROPOUT)
    assert hover.startswith("**TF Insight — step 3: Dropout.\\_\\_call\\_\\_**")
    for needle in ("one_step_on_data", "tf.recompute_grad wrapper", "`training=True`",
                   "`SymbolicTensor(None, 8) float32`", "`/ws/remat_dropout.py:14`",
                   f"`{LAYER_PY}:901`", "this code runs while a graph is traced"):
        assert needle in hover, (needle, hover)


def test_the_pieces() -> None:
    assert short_repr("<function Functional.call at 0x7efe268d59e0>") == "Functional.call"
    assert short_repr("<function recompute_grad.<locals>.inner at 0x7>") == "recompute_grad"
    assert short_repr("<function make.<locals>.step at 0x7>") == "step"
    assert short_repr("<bound method Dropout.call of <Dropout name=dropout>>") == "Dropout.call"
    assert short_repr("<bound method recompute_grad.<locals>.inner of <Norm object at 0x…") == (
        "recompute_grad")  # `@tf.recompute_grad` on a tf-keras layer's method
    assert short_repr("<tensorflow.python.ops.custom_gradient.Bind object at 0x7e>") == "Bind"
    assert render_value({"type": "bool", "value": True}) == "True"
    assert render_value({"type": "tuple", "len": 3, "items": [
        {"type": "int", "value": 1}, {"type": "NoneType", "value": None}]}) == "(1, None, …)"
    assert render_value({"type": "dict", "keys": ["a", "b"]}) == "{a, b}"
    assert render_value({"type": "foo.Bar", "repr": "<Bar>"}) == "<Bar>"
    assert render_kwargs({"training": True, "rate": 0.5, "mask": None}) == [
        "training=True", "rate=0.5", "mask=None"]
    assert title(DROPOUT) == "Dropout.__call__"
    assert title(step(probe="custom_gradient._graph_mode_decorator", layer={"class": "Dense"})) == (
        "custom_gradient._graph_mode_decorator (Dense)")
    assert title(step(probe="a.b.c.d")) == "c.d"


def test_every_step_sent_carries_its_annotation() -> None:
    data = DROPOUT.to_dict()
    assert data["annotation"] == {"title": "Dropout.__call__", "mode": "graph (one_step_on_data)",
                                  "label": label(DROPOUT), "markdown": markdown(DROPOUT)}
