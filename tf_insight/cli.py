"""`tf-insight` command line: one subcommand per feature module.

Each feature module exposes `register(subparsers)`, which adds its parser and sets
`func=<handler(args) -> int>`. Exit codes: 0 clean, 1 findings/problem found, 2 usage or
internal error (never a Python traceback).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from tf_insight import __version__, check_cli
from tf_insight.explain import cli as explain_cli
from tf_insight.session import cli as trace_cli

FEATURES = [check_cli, explain_cli, trace_cli]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tf-insight",
        description="Find, explain and trace TensorFlow/Keras graph-mode hazards.",
    )
    parser.add_argument("--version", action="version", version=f"tf-insight {__version__}")
    subparsers = parser.add_subparsers(dest="command", required=True)
    for feature in FEATURES:
        feature.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:  # argparse exits 2 on usage errors; keep its code
        return int(exit_.code or 0)
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except Exception as error:  # last line of defence: a clear message, never a traceback
        print(f"tf-insight: internal error: {type(error).__name__}: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
