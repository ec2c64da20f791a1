"""The debuggee's probe session, called the way a logpoint calls it (no debugger needed); every
event it sends must read as its schema says."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tf_insight.session.debuggee import introspect, values
from tf_insight.session.debuggee.counters import Counters
from tf_insight.session.debuggee.frames import Library
from tf_insight.session.debuggee.messages import read_event
from tf_insight.session.debuggee.probe import ProbeSession

GRAPH_MODE = "custom_gradient._graph_mode_decorator"


class Bind:
    """Stands in for tensorflow's custom_gradient.Bind (matched by name and module)."""

    __module__ = "tensorflow.python.ops.custom_gradient"

    def __init__(self, f: Any) -> None:
        self._f = f


class BadRepr:
    def __repr__(self) -> str:
        raise RuntimeError("boom")


class FakeTensor:
    shape = (2, 3)
    dtype = type("DType", (), {"name": "float32"})()


class Layer:
    def call(self, inputs: Any) -> Any:
        return inputs


def _probed(session: ProbeSession, f: Any, kwargs: dict[str, Any]) -> str:
    args = (FakeTensor(), BadRepr())  # noqa: F841 - read by the probe through the frame
    return session.hit(GRAPH_MODE)  # @probed


PROBED_LINE = next(
    n
    for n, line in enumerate(Path(__file__).read_text().splitlines(), start=1)
    if line.endswith("# @probed")
)


class Pipe:
    """The annotation pipe, read back without blocking."""

    def __init__(self) -> None:
        self.read, self.write = os.pipe()
        os.set_blocking(self.read, False)

    def records(self) -> list[Any]:
        """The events so far, each checked against its schema."""
        data = b""
        while True:
            try:
                chunk = os.read(self.read, 65536)
            except BlockingIOError:
                break
            if not chunk:
                break
            data += chunk
        return [read_event(json.loads(line)) for line in data.decode().splitlines()]


class Session:
    """A probe session of its own, writing to a pipe of its own."""

    def __init__(self) -> None:
        self.pipe = Pipe()
        self.probe = ProbeSession(self.pipe.write)
        self.probe.configure({"max_hits": 3, "trace_to_end": False, "locations": {
            GRAPH_MODE: [{"path": __file__, "line": PROBED_LINE}]}})

    def probed(self, f: Any, kwargs: dict[str, Any]) -> str:
        return _probed(self.probe, f, kwargs)

    def close(self) -> None:
        os.close(self.pipe.write)
        os.close(self.pipe.read)


@pytest.fixture
def session() -> Iterator[Session]:
    opened = Session()
    yield opened
    opened.close()


def test_hit_annotates_the_probed_frame_and_returns_nothing(session: Session) -> None:
    assert session.probed(Bind(Layer().call), {"training": True, "x": FakeTensor()}) == ""
    (step,) = [r for r in session.pipe.records() if r["kind"] == "step"]
    assert step["probe"] == GRAPH_MODE
    assert step["location"] == {"path": __file__, "line": PROBED_LINE, "function": "_probed"}
    kinds = [link["kind"] for link in step["call_fn"]["chain"]]
    assert kinds == ["custom_gradient Bind", "bound method"]
    assert step["args"][0] == {"type": "FakeTensor", "shape": "(2, 3)", "dtype": "float32"}
    assert "repr failed with RuntimeError" in step["args"][1]["repr"]
    assert step["kwargs"] == {"training": True, "x": "FakeTensor(shape=(2, 3), dtype=float32)"}
    assert step["detail"]["raises"].startswith("ValueError")
    assert step["detail"]["stack"][-1].endswith(f"_probed:{PROBED_LINE}")
    assert step["user_frame"]["path"] == __file__


def test_hits_past_the_limit_per_call_site_only_count(session: Session) -> None:
    for _ in range(5):
        session.probed(Bind(Layer().call), {})
    assert len([r for r in session.pipe.records() if r["kind"] == "step"]) == 3


def test_a_library_function_through_custom_gradient_is_no_step_unless_it_raises(
        session: Session) -> None:
    """TF wraps its own functions too (the optimizer's `all_reduce` gradient): those are not
    the user's steps, unless Keras or TF passed them keyword arguments, which fails."""
    session.probed(Bind(json.dumps), {})
    assert [r for r in session.pipe.records() if r["kind"] == "step"] == []
    session.probed(Bind(json.dumps), {"training": True})
    (step,) = [r for r in session.pipe.records() if r["kind"] == "step"]
    assert step["kwargs"] == {"training": True}


def test_hit_outside_a_probed_frame_is_ignored(session: Session) -> None:
    assert session.probe.hit(GRAPH_MODE) == ""
    assert session.pipe.records() == []


def test_two_sessions_keep_their_own_counts() -> None:
    """State lives in the session: a new one starts from nothing."""
    first, second = Session(), Session()
    for _ in range(3):
        first.probed(Bind(Layer().call), {})
    second.probed(Bind(Layer().call), {})
    assert [r["site_hit"] for r in second.pipe.records() if r["kind"] == "step"] == [1]
    assert first.probe.summary()["probe_hits"] == {GRAPH_MODE: 3}
    first.close()
    second.close()


def test_summarize_never_dumps_data_and_survives_odd_objects() -> None:
    assert values.summarize(list(range(100)))["len"] == 100
    assert len(values.summarize(list(range(100)))["items"]) == values.MAX_ITEMS
    assert values.short_value("x" * 1000) == "x" * values.MAX_REPR
    assert values.safe_repr(BadRepr()).startswith("<BadRepr: repr failed")
    assert values.summarize({"a": 1}) == {"type": "dict", "keys": ["a"]}


class FunctionCache:
    """Like TF's: slots only, so it takes neither attributes nor weak references."""

    __slots__ = ("_primary",)

    def __init__(self) -> None:
        self._primary: dict[str, str] = {}


def test_a_reused_trace_cache_id_is_a_new_function() -> None:
    """A freed tf.function's id comes back for the next one: a cache still empty under an id
    that already has traces starts a new generation, so two functions are never one."""
    counters, cache = Counters(Library()), FunctionCache()

    class Options:
        """TF's tracing options at a function's first trace."""

        function_cache = cache
        python_function = _trainer_function
        name = "step"
        scope_type = type("Scope", (), {"name": "VARIABLE_CREATION"})()

    first, _ = counters.count_trace(Options(), None)
    assert counters.serial(cache, starting=False) == first[0]  # a first call's second trace
    cache._primary["trace"] = "concrete function"
    assert counters.serial(cache, starting=True) == first[0]  # the same function, called again
    cache._primary.clear()  # as a new function's empty cache at the same address
    second = counters.serial(cache, starting=True)
    assert second != first[0] and second & ((1 << 48) - 1) == id(cache)
    assert counters.serial(cache, starting=True) == second  # not traced yet: that function


def _trainer_function(step_function: Any) -> Any:
    """Keras 3's shape: one maker of every trainer function, the step in a nested closure."""
    def one_step_on_data(data: Any) -> Any:
        return step_function(data)

    def multi_step_on_iterator(iterator: Any) -> Any:
        return one_step_on_data(next(iterator))

    return multi_step_on_iterator


class Model:
    def test_step(self, data: Any) -> Any:
        return data


def test_functions_of_one_name_are_told_apart_by_their_step_or_their_maker() -> None:
    assert introspect.function_context(_trainer_function(Model().test_step)) == (
        "running test_step")

    def outer() -> Any:
        def step(x: Any) -> Any:
            return x
        return step

    assert introspect.function_context(outer()) == "in outer"
    assert introspect.function_context(_trainer_function) is None  # a module-level function
