"""`tf-insight trace [--python PY] [--max-hits N] [--trace-to-end] [--stop-after WHEN]
[--timeout S] [--format text|json] [-v] [-o FILE] [--script-output FILE]
(SCRIPT | -m MODULE) [ARGS…]`.

Exit codes: 0 the script ran cleanly (or was stopped as `--stop-after` asked); 1 it failed (exception, non-zero exit, timeout); 2 the
session could not run (usage, interpreter without debugpy/TensorFlow, adapter failure); 130
or 143 the session was interrupted by Ctrl-C or SIGTERM (the partial result is reported).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import signal
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar, TextIO

from tf_insight.config import interpreter_path
from tf_insight.session.model import OutputSink, StopAfter, TraceConfig, TraceResult
from tf_insight.session.render import render_text
from tf_insight.session.runner import run_trace

EXIT_CLEAN = 0
EXIT_SCRIPT_FAILED = 1
EXIT_SESSION_ERROR = 2


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "trace",
        help="run a script under the debugger and show how Keras, AutoGraph and "
        "custom_gradient handled each call",
        description="Run SCRIPT with the user's interpreter under debugpy, annotate each pass "
        "through Keras → AutoGraph → custom_gradient → tf.function, and explain the failure.",
        epilog="exit status: 0 clean run, 1 the script failed, 2 the session could not run",
    )
    parser.add_argument(
        "--python",
        metavar="PY",
        type=lambda value: interpreter_path(value, Path.cwd()),
        default=sys.executable,
        help="interpreter to run SCRIPT with (default: this one)",
    )
    parser.add_argument(
        "--max-hits",
        metavar="N",
        type=_positive_int,
        default=3,
        help="steps kept per probe per call site in your code (default 3)",
    )
    parser.add_argument(
        "--trace-to-end",
        action="store_true",
        help="keep the debugger's tracer on for the whole run, not only until the run repeats "
        "itself (slower; the same report)",
    )
    parser.add_argument(
        "--stop-after",
        metavar="WHEN",
        type=_stop_after,
        help="stop the script early, with the report so far: at the first `verdict`, after the "
        "`first-step`, after `N-steps`, or `S-seconds` after it started",
    )
    parser.add_argument(
        "--timeout",
        metavar="S",
        type=_positive_seconds,
        default=600.0,
        help="seconds before the script is killed (default 600)",
    )
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="text report with every step, side effect and stack (default: outcome first, "
        "the verdict's steps only)",
    )
    parser.add_argument(
        "-o", "--output-file", dest="out", metavar="FILE", type=Path,
        help="write the report here instead of stdout"
    )
    parser.add_argument("--out", dest="out", type=Path, help=argparse.SUPPRESS)  # the old name
    parser.add_argument(
        "--script-output",
        metavar="FILE",
        type=Path,
        help="write the script's stdout/stderr here instead of passing it through",
    )
    parser.add_argument(
        "-m",
        dest="module",
        metavar="MODULE",
        help="run MODULE as `python -m MODULE` does, from the working directory (a src-layout "
        "project's package, installed in development mode)",
    )
    parser.add_argument("script", metavar="SCRIPT", nargs="?",
                        help="the Python script (or notebook) to run")
    parser.add_argument(
        "args", metavar="ARGS", nargs=argparse.REMAINDER, help="arguments for the script"
    )
    parser.set_defaults(func=run)


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def _positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, got {text}")
    return value


def _stop_after(text: str) -> StopAfter:
    try:
        return StopAfter.parse(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def run(args: argparse.Namespace) -> int:
    if args.module is not None:  # after `-m MODULE`, every word is the module's
        args.args = [*([args.script] if args.script is not None else []), *args.args]
        args.script = args.module
    elif args.script is None:
        print("tf-insight trace: give a SCRIPT or -m MODULE", file=sys.stderr)
        return EXIT_SESSION_ERROR
    log: TextIO | None = None
    interruption = _Interruption()
    try:
        if args.script_output is not None:
            log = args.script_output.open("w", encoding="utf-8")
        config = TraceConfig(
            script=args.script,
            args=tuple(args.args),
            python=args.python,
            max_hits=args.max_hits,
            trace_to_end=args.trace_to_end,
            stop_after=args.stop_after,
            timeout_s=args.timeout,
            module=args.module is not None,
            output=_sink(log, args.format == "json" and args.out is None),
        )
        with interruption.handling() as cancel:
            result = run_trace(config, cancel=cancel)
        interruption.note(result)
    except OSError as error:
        print(f"tf-insight trace: {error}", file=sys.stderr)
        return EXIT_SESSION_ERROR
    finally:
        if log is not None:
            log.close()
    report = (
        json.dumps(result.to_dict(), indent=2) + "\n"
        if args.format == "json"
        else render_text(result, verbose=args.verbose)
    )
    if args.out is not None:
        args.out.write_text(report, encoding="utf-8")
    else:
        sys.stdout.write(report)
    return interruption.exit_code if interruption.signal else _exit_code(result)


class _Interruption:
    """Ctrl-C and SIGTERM end the session cleanly, the script stopped and the partial result
    reported, instead of a traceback and no report."""

    MEANING: ClassVar[dict[signal.Signals, tuple[str, int]]] = {
        signal.SIGINT: ("interrupted (Ctrl-C)", 130),
        signal.SIGTERM: ("terminated (SIGTERM)", 143),
    }

    def __init__(self) -> None:
        self.cancel = threading.Event()
        self.signal: signal.Signals | None = None

    @property
    def exit_code(self) -> int:
        return self.MEANING[self.signal][1] if self.signal else EXIT_CLEAN

    def note(self, result: TraceResult) -> None:
        if self.signal:
            result.problems.append(f"{self.MEANING[self.signal][0]}: the result so far")

    @contextlib.contextmanager
    def handling(self) -> Iterator[threading.Event]:
        def on_signal(number: int, _frame: object) -> None:
            self.signal = signal.Signals(number)
            self.cancel.set()

        if threading.current_thread() is not threading.main_thread():
            yield self.cancel  # signals reach the main thread only
            return
        previous = {number: signal.signal(number, on_signal) for number in self.MEANING}
        try:
            yield self.cancel
        finally:
            for number, handler in previous.items():
                signal.signal(number, handler)


def _sink(log: TextIO | None, keep_stdout_clean: bool) -> OutputSink | None:
    """Where the script's output goes: a file, our stderr (JSON on stdout), or straight through."""
    if log is not None:
        lock = threading.Lock()

        def to_file(_stream: str, text: str) -> None:
            with lock:
                log.write(text)
                log.flush()

        return to_file
    if keep_stdout_clean:
        return _to_stderr
    return None


def _to_stderr(_stream: str, text: str) -> None:
    sys.stderr.write(text)
    sys.stderr.flush()


def _exit_code(result: TraceResult) -> int:
    if result.status == "error":
        return EXIT_SESSION_ERROR
    return (
        EXIT_CLEAN
        if result.status in ("completed", "stopped") and result.exception is None
        else EXIT_SCRIPT_FAILED
    )
