"""`tf-insight explain [FILE|-] [--root DIR] [--format text|markdown|json] [-o FILE]`.

Exit codes: 0 the error or warning is in the catalogue; 1 nothing recognised (an unknown
error still gets its parsed frame, unwrapped message and generic advice; text that is not a
traceback gets a clear message); 2 usage error (unreadable file, bad option).
"""

from __future__ import annotations

import argparse
import codecs
import json
import sys
from pathlib import Path

from tf_insight.explain.engine import explain
from tf_insight.explain.render import render_markdown, render_text
from tf_insight.explain.repair import without_controls

EXIT_EXPLAINED = 0
EXIT_NOT_RECOGNISED = 1
EXIT_USAGE = 2


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "explain",
        help="explain a TensorFlow/Keras graph-mode error from its traceback",
        description="Read a traceback or warning as printed by TensorFlow (a file, or stdin) "
        "and explain what happened, why, where in your code, and how to fix it.",
        epilog="exit status: 0 explained, 1 not recognised, 2 usage error",
    )
    parser.add_argument(
        "file", nargs="?", default="-", help="file with the traceback, or - for stdin (default)"
    )
    parser.add_argument(
        "--root",
        type=Path,
        default=None,
        help="workspace to map frames to and run static analysis on (default: current directory)",
    )
    parser.add_argument("--format", choices=("text", "markdown", "json"), default="text")
    parser.add_argument("-o", "--output-file", type=Path, metavar="FILE",
                        help="write the explanation here instead of stdout")
    parser.set_defaults(func=run)


def read_input(file: str) -> str:
    """The pasted text, decoded leniently (UTF-8, or UTF-16 from PowerShell redirection)."""
    data = sys.stdin.buffer.read() if file == "-" else Path(file).read_bytes()
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return data.decode("utf-16", errors="replace")
    return data.decode("utf-8-sig", errors="replace")


def run(args: argparse.Namespace) -> int:
    try:
        text = read_input(args.file)
    except OSError as error:
        print(
            f"tf-insight explain: cannot read {args.file}: {error.strerror or error}",
            file=sys.stderr,
        )
        return EXIT_USAGE
    root = (args.root or Path.cwd()).resolve()
    if not root.is_dir():
        print(f"tf-insight explain: --root {args.root} is not a directory", file=sys.stderr)
        return EXIT_USAGE
    explanation = explain(text, root=root)
    if args.format == "json":
        rendered = json.dumps(explanation.to_dict(), indent=2) + "\n"
    elif args.format == "markdown":
        rendered = without_controls(render_markdown(explanation))
    else:
        rendered = without_controls(render_text(explanation))
    if args.output_file is None:
        print(rendered, end="")
    else:
        try:
            args.output_file.write_text(rendered, encoding="utf-8")
        except OSError as error:
            print(f"tf-insight explain: cannot write {args.output_file}: "
                  f"{error.strerror or error}", file=sys.stderr)
            return EXIT_USAGE
    return EXIT_EXPLAINED if explanation.recognised else EXIT_NOT_RECOGNISED
