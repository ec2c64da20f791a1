"""Measures the ground truth of one realistic script on real TensorFlow, outside the script.

    .venv/bin/python tests/session/realistic/measure.py dev/some_script.py [--json OUT]

The script runs as `__main__` (exec'd in a dict of ours, so its globals survive a crash). The
harness only watches: `tf.function`'s `__call__` is wrapped at class level to count, for each
function object, the calls made eagerly (= graph runs) apart from those made while another
graph was being traced; stdout is teed so that trace-time prints can be counted. After the run
it reports, for every tf.function that was called:

- `traces`: `experimental_get_tracing_count()`;
- `graph_runs`: calls made eagerly, i.e. executions of a traced graph;
- `signatures`: the input signatures of its concrete functions;

named `script:<qualname>` for the script's own functions and `<model>.<attr>:<name>` (attr:
train_function, test_function or predict_function; name: the tf.function's Python name) for
the Keras functions behind a model found in memory. Then any per-script probe below (a side effect's count, a stale value...), the
error the script raised, and the wall time of the exec (the plain time is measured apart,
by `time .venv/bin/python script.py`).

Nothing here is imported by the scripts: they stay what a user would write.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import io
import json
import os
import re
import sys
import time
import traceback
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


class Tee(io.TextIOBase):
    def __init__(self, real: Any) -> None:
        self.real = real
        self.buffer_text: list[str] = []

    def write(self, text: str) -> int:
        self.buffer_text.append(text)
        return self.real.write(text)

    def flush(self) -> None:
        self.real.flush()

    def isatty(self) -> bool:
        return False

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self.real, "encoding", "utf-8")

    def text(self) -> str:
        return "".join(self.buffer_text)


# --- per-script probes: (globals of the script, its stdout) -> facts ---------------------------


def _count_lines(pattern: str, out: str) -> int:
    return sum(1 for line in out.splitlines() if re.search(pattern, line))


def probe_custom_train_step_print(g: dict[str, Any], out: str) -> dict[str, Any]:
    return {"print_ran": _count_lines(r"^train_step loss:", out)}


def probe_layer_call_counter(g: dict[str, Any], out: str) -> dict[str, Any]:
    noise = g["model"].get_layer("annealed_noise")
    return {"counter_value": noise.calls, "optimizer_iterations": int(g["model"].optimizer.iterations.numpy())}


def probe_stale_global_capture(g: dict[str, Any], out: str) -> dict[str, Any]:
    import tensorflow as tf

    # 50 rows: the batch shape the training loop traced with, so the graph call reuses that trace.
    x, y = g["x_val"][:50], g["y_val"][:50]
    t_final = g["TEMPERATURE"]
    # What the traced graph computes now vs. what the same Python code computes eagerly now.
    graph_loss = float(g["distillation_loss"](x, y).numpy())
    tf.config.run_functions_eagerly(True)
    try:
        eager_loss = float(g["distillation_loss"](x, y).numpy())
    finally:
        tf.config.run_functions_eagerly(False)
    return {
        "temperature_at_end": t_final,
        "temperatures_used": g.get("temperature_history"),
        "traces_after_probe": g["distillation_loss"].experimental_get_tracing_count(),
        "graph_distill_loss_now": graph_loss,
        "eager_distill_loss_now": eager_loss,
    }


def probe_python_float_lr(g: dict[str, Any], out: str) -> dict[str, Any]:
    return {"distinct_lr_values": len(set(g["lr_history"]))}


def probe_variable_length_sequences(g: dict[str, Any], out: str) -> dict[str, Any]:
    return {"distinct_batch_lengths": len({b[0].shape[1] for b in g["batches"]})}


PROBES = {
    "custom_train_step_print": probe_custom_train_step_print,
    "layer_call_counter": probe_layer_call_counter,
    "stale_global_capture": probe_stale_global_capture,
    "python_float_lr": probe_python_float_lr,
    "variable_length_sequences": probe_variable_length_sequences,
}


# --- the run -----------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("script")
    parser.add_argument("--json")
    args = parser.parse_args()
    script = Path(args.script)
    if not script.is_absolute():
        script = (HERE / script) if (HERE / script).exists() else script.resolve()

    from tensorflow.python.eager import context
    from tensorflow.python.eager.polymorphic_function import polymorphic_function

    Function = polymorphic_function.Function
    seen: dict[int, dict[str, Any]] = {}
    original_call = Function.__call__

    def counting_call(self: Any, *a: Any, **k: Any) -> Any:
        record = seen.setdefault(id(self), {"fn": self, "graph_runs": 0, "calls_in_traces": 0})
        record["fn"] = self
        if context.executing_eagerly():
            record["graph_runs"] += 1
        else:
            record["calls_in_traces"] += 1
        return original_call(self, *a, **k)

    Function.__call__ = counting_call  # type: ignore[method-assign]

    tee = Tee(sys.stdout)
    real_stdout = sys.stdout
    sys.stdout = tee  # type: ignore[assignment]
    sys.argv = [str(script)]
    sys.path.insert(0, str(script.parent))
    g: dict[str, Any] = {"__name__": "__main__", "__file__": str(script), "__builtins__": __builtins__}
    error = None
    start = time.perf_counter()
    try:
        code = compile(script.read_text(), str(script), "exec")
        exec(code, g)
    except BaseException as exc:  # a crash is a fact to record
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == str(script)]
        error = {
            "type": type(exc).__name__,
            "message_lines": [line.strip() for line in str(exc).splitlines() if line.strip()][-12:],
            "script_lines_in_traceback": [f.lineno for f in frames],
        }
    elapsed = time.perf_counter() - start
    sys.stdout = real_stdout
    Function.__call__ = original_call  # type: ignore[method-assign]

    # Name the Keras functions after the model attribute that holds them.
    keras_names: dict[int, str] = {}
    model_classes = []
    for mod in ("keras", "tf_keras"):
        if mod in sys.modules:
            model_classes.append(sys.modules[mod].Model)

    def functions_in(obj: Any, depth: int = 0) -> list[Any]:
        if isinstance(obj, Function):
            return [obj]
        found = []
        if depth < 4 and callable(obj) and getattr(obj, "__closure__", None):
            for cell in obj.__closure__:
                with contextlib.suppress(ValueError):  # an empty cell
                    found += functions_in(cell.cell_contents, depth + 1)
        return found

    for obj in gc.get_objects():
        if model_classes and isinstance(obj, tuple(model_classes)):
            for attr in ("train_function", "test_function", "predict_function"):
                for fn in functions_in(getattr(obj, attr, None)):
                    keras_names[id(fn)] = f"{obj.name}.{attr}:{fn.python_function.__name__}"

    functions: dict[str, Any] = {}
    for key, record in seen.items():
        fn = record["fn"]
        py = fn.python_function
        code_obj = getattr(py, "__code__", None)
        where = f"{code_obj.co_filename}:{code_obj.co_firstlineno}" if code_obj else "?"
        if code_obj and code_obj.co_filename == str(script):
            name = f"script:{py.__qualname__}"
        elif key in keras_names:
            name = keras_names[key]
        else:
            name = f"other:{getattr(py, '__qualname__', py)}"
        while name in functions:
            name += "'"
        try:
            signatures = [
                str(c.structured_input_signature) for c in fn._list_all_concrete_functions()
            ]
        except Exception as exc:
            signatures = [f"? {exc}"]
        functions[name] = {
            "traces": fn.experimental_get_tracing_count(),
            "graph_runs": record["graph_runs"],
            "calls_in_traces": record["calls_in_traces"],
            "defined_at": where.replace(str(HERE) + os.sep, ""),
            "signatures": signatures,
        }

    probe = PROBES.get(script.stem)
    probed: dict[str, Any] = {}
    if probe:
        try:
            probed = probe(g, tee.text())
        except Exception as exc:
            probed = {"probe_error": repr(exc)}

    report = {
        "script": script.name,
        "error": error,
        "exec_seconds": round(elapsed, 2),
        "functions": functions,
        "probe": probed,
    }
    text = json.dumps(report, indent=1, default=str)
    if args.json:
        Path(args.json).write_text(text)
    print("=== MEASURE ===")
    print(text)


if __name__ == "__main__":
    main()
