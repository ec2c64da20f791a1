"""`tf-insight` command line: one subcommand per feature module.

Each feature module exposes `register(subparsers)`, which adds its parser and sets
`func=<handler(args) -> int>`. Exit codes: 0 clean, 1 findings/problem found, 2 usage or
internal error (never a Python traceback).
"""

from __future__ import annotations

import argparse
import importlib
import io
import os
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import TextIO

from tf_insight import __version__

# Subcommand → the feature module that registers it. Only the module of the command being run
# is imported: `trace` should not pay for loading every rule before the script starts.
FEATURES = {
    "check": "tf_insight.check.cli",
    "rule": "tf_insight.check.cli",
    "rules": "tf_insight.check.cli",
    "explain": "tf_insight.explain.cli",
    "trace": "tf_insight.session.cli",
    "debug": "tf_insight.debug.cli",
}


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser for one command's feature, or for all of them (help, unknown commands)."""
    parser = argparse.ArgumentParser(
        prog="tf-insight",
        description="Find, explain and trace TensorFlow/Keras graph-mode hazards.",
    )
    parser.add_argument("--version", action="version", version=f"tf-insight {__version__}")
    subparsers = parser.add_subparsers(dest="command", required=True)
    wanted = [FEATURES[command]] if command in FEATURES else list(dict.fromkeys(FEATURES.values()))
    for name in wanted:
        feature: ModuleType = importlib.import_module(name)
        feature.register(subparsers)
    return parser


def parse(parser: argparse.ArgumentParser, arguments: list[str]) -> argparse.Namespace:
    """The arguments; an unknown option is the command's usage error (`usage: tf-insight
    trace …`), not the top-level parser's (`usage: tf-insight … {trace}`)."""
    args, unknown = parser.parse_known_args(arguments)
    if unknown:
        commands = next(action for action in parser._actions
                        if isinstance(action, argparse._SubParsersAction))
        commands.choices[args.command].error(f"unrecognized arguments: {' '.join(unknown)}")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(arguments[0] if arguments else None)
    try:
        args = parse(parser, arguments)
    except SystemExit as exit_:  # argparse exits 2 on usage errors; keep its code
        return int(exit_.code or 0)
    sys.stdout = _PipeSafe(sys.stdout)
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        print("tf-insight: interrupted", file=sys.stderr)
        return 130
    except Exception as error:  # last line of defence: a clear message, never a traceback
        print(f"tf-insight: internal error: {type(error).__name__}: {error}", file=sys.stderr)
        return 2


class _PipeSafe(io.TextIOBase):
    """stdout that stops writing, without an error, once its reader has gone (`check | head`):
    the command runs to the end and exits with its own status, not a broken pipe's."""

    def __init__(self, stream: TextIO) -> None:
        self._stream: TextIO | None = stream

    def write(self, text: str) -> int:
        if self._stream is not None:
            try:
                self._stream.write(text)
            except BrokenPipeError:
                self._gone()
        return len(text)

    def flush(self) -> None:
        if self._stream is not None:
            try:
                self._stream.flush()
            except BrokenPipeError:
                self._gone()

    def _gone(self) -> None:
        # Python flushes stdout again at exit: point its descriptor at /dev/null first.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.__stdout__.fileno() if sys.__stdout__ else 1)
        os.close(devnull)
        self._stream = None


if __name__ == "__main__":
    sys.exit(main())
