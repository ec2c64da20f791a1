"""The session's contract: one schema per boundary, checked on read, and the client's types
generated from it (a change on one side without the other fails here or in the client's
`protocol.test.ts`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tf_insight.session import TraceResult
from tf_insight.session.debuggee.messages import EVENTS, Configure, read_event
from tf_insight.session.debuggee.schema import MessageError, read
from tf_insight.session.model import Retrace, SideEffect, Step, Verdict
from tf_insight.session.runner import _Collector
from tf_insight.session.typescript import PROTOCOL_TS, current_block, generated_block
from tf_insight.session.wire import SessionEndParams, StepData, TraceResultData, check

REAL = Path(__file__).resolve().parents[2] / "client" / "test" / "data" / "remat_trace.json"


def _step_event(**fields: Any) -> dict[str, Any]:
    return {"kind": "step", "probe": "keras.Layer.__call__",
            "location": {"path": "/venv/keras/layer.py", "line": 3, "function": "__call__"},
            "user_frame": {"path": "/w/train.py", "line": 9, "function": "<module>"},
            "executing_eagerly": False, "graph": "one_step_on_data",
            "layer": {"class": "Dense", "name": "dense"}, "call_fn": None,
            "args": [{"type": "SymbolicTensor", "shape": "(None, 3)", "dtype": "float32"}],
            "kwargs": {"training": True}, "site_hit": 1, **fields}


def test_the_clients_types_are_the_ones_the_schema_generates() -> None:
    protocol = PROTOCOL_TS.read_text(encoding="utf-8")
    assert current_block(protocol) == generated_block(), (
        "client/src/core/protocol.ts is out of date: "
        "python -m tf_insight.session.typescript --write")


def test_the_runner_handles_every_kind_the_debuggee_sends_and_no_other() -> None:
    assert _Collector(None).kinds == set(EVENTS)


def test_a_step_reads_as_its_schema_says() -> None:
    event = read_event(_step_event(detail={"raises": "ValueError: no"}))
    assert Step.from_event(0, event).detail == {"raises": "ValueError: no"}


@pytest.mark.parametrize(("change", "error"), [
    ({"kind": "stepp"}, "event: no such kind 'stepp'"),
    ({"location": {"path": "/x.py", "line": "3", "function": "f"}},
     "step.location.line: expected int, got str '3'"),
    ({"site_hit": True}, "step.site_hit: expected int, got bool True"),
    ({"user_frame": {"path": "/w/train.py", "function": "f"}}, "step.user_frame.line: missing"),
    ({"layer": {"class": "Dense", "name": "d", "rate": 0.5}},
     "step.layer.rate: not a field of Layer"),
    ({"args": [{"type": "int", "value": [1]}]},
     "step.args[0].value: expected str | int | float | bool | None, got list [1]"),
    ({"kwargs": {"training": {"a": 1}}}, "step.kwargs.training: expected str | int | float"),
])
def test_a_bad_field_is_named_where_it_is(change: dict[str, Any], error: str) -> None:
    with pytest.raises(MessageError, match="^" + error.replace("|", r"\|").replace("[", r"\[")
                       .replace("(", r"\(")):
        read_event(_step_event(**change))


def test_a_missing_field_of_a_record_is_said_once_and_the_session_goes_on() -> None:
    collector = _Collector(None)
    collector.add({"kind": "retire"})
    collector.add({"kind": "retire", "probe": "autograph.converted_call"})
    assert collector.problems == ["a bad message from the debuggee: retire.probe: missing"]
    assert collector.retired_probes == ["autograph.converted_call"]


def test_the_control_message_is_checked_by_the_same_schema() -> None:
    message = {"max_hits": 3, "trace_to_end": False,
               "locations": {"keras.Layer.__call__": [{"path": "/venv/op.py", "line": 63}]}}
    assert read(message, Configure, "configure") == message
    with pytest.raises(MessageError, match=r"^configure.locations.keras.Layer.__call__\[0\]"):
        read({**message, "locations": {"keras.Layer.__call__": [["/venv/op.py", 63]]}},
             Configure, "configure")


def test_a_whole_result_and_the_end_notification_read_as_sent() -> None:
    step = Step.from_event(0, read_event(_step_event()))
    result = TraceResult(
        script="train.py", status="failed", steps=[step], exit_code=1,
        verdict=Verdict("retracing-warning", None, "title", "summary", chain=[0],
                        user_frame={"path": "/w/train.py", "line": 9, "function": "<module>",
                                    "source": "fit()"}),
        retraces=[Retrace("step", "/w/train.py", 3, 2, ["trace 2: `x`: shape"])],
        side_effects=[SideEffect("tf.function step", 2, "step", 4, "ran")])
    data = json.loads(json.dumps(result.to_dict()))
    assert check(data, TraceResultData, "result") == data
    params = {"sessionId": "s1", "result": data}
    assert check(params, SessionEndParams, "end") == params


def test_a_real_sessions_steps_read_as_step_data() -> None:
    for index, step in enumerate(json.loads(REAL.read_text(encoding="utf-8"))["steps"]):
        check(step, StepData, f"steps[{index}]")
