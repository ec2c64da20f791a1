"""`tf-insight trace [--python PY] [--max-hits N] [--timeout S] [--format text|json]
[--out FILE] [--script-output FILE] SCRIPT [ARGS…]`.

Exit codes: 0 the script ran cleanly; 1 it failed (exception, non-zero exit, timeout); 2 the
session could not run (usage, interpreter without debugpy/TensorFlow, adapter failure).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import threading
from pathlib import Path
from typing import TextIO

from tf_insight.config import interpreter_path
from tf_insight.session.model import OutputSink, TraceConfig, TraceResult
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
        "--timeout",
        metavar="S",
        type=_positive_seconds,
        default=600.0,
        help="seconds before the script is killed (default 600)",
    )
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument(
        "--out", metavar="FILE", type=Path, help="write the report here instead of stdout"
    )
    parser.add_argument(
        "--script-output",
        metavar="FILE",
        type=Path,
        help="write the script's stdout/stderr here instead of passing it through",
    )
    parser.add_argument("script", metavar="SCRIPT", help="the Python script to run")
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


def run(args: argparse.Namespace) -> int:
    log: TextIO | None = None
    try:
        if args.script_output is not None:
            log = args.script_output.open("w", encoding="utf-8")
        config = TraceConfig(
            script=args.script,
            args=tuple(args.args),
            python=args.python,
            max_hits=args.max_hits,
            timeout_s=args.timeout,
            output=_sink(log, args.format == "json" and args.out is None),
        )
        result = run_trace(config)
    except OSError as error:
        print(f"tf-insight trace: {error}", file=sys.stderr)
        return EXIT_SESSION_ERROR
    finally:
        if log is not None:
            log.close()
    report = (
        json.dumps(result.to_dict(), indent=2) + "\n"
        if args.format == "json"
        else render_text(result)
    )
    if args.out is not None:
        args.out.write_text(report, encoding="utf-8")
    else:
        sys.stdout.write(report)
    return _exit_code(result)


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
        if result.status == "completed" and result.exception is None
        else EXIT_SCRIPT_FAILED
    )
