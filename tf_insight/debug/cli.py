"""`tf-insight debug [--python PY] [--eager] --listen [HOST:]PORT [--wait-for-client]
(SCRIPT | -m MODULE) [ARGS...]`: run a program for any DAP client (nvim-dap, VS Code's
attach, ...) to attach to, as `python -m debugpy --listen` does, with breakpoints that stop
inside `tf.function`s, Keras `call`s and `Dataset.map` functions while TF traces them, and with
`--eager` on every call and element. `tfi()` in the debug console says what TF is doing at the
stop. The process becomes the program (its exit status is the program's)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from tf_insight.config import interpreter_path
from tf_insight.debug.launch import command_line

EXIT_USAGE = 2


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "debug",
        help="run a script for a debugger to attach, with breakpoints that stop in graph code",
        description="Run SCRIPT under debugpy, listening for a DAP client, with breakpoints "
        "that stop inside tf.function, Keras call/train_step and Dataset.map functions while "
        "TensorFlow traces them (with --eager: on every call and element). In the debug "
        "console, tfi() says what TensorFlow and Keras are doing at the stop.",
        epilog="the listening port has no authentication (as debugpy's): keep it on 127.0.0.1",
    )
    parser.add_argument(
        "--python", metavar="PY", type=lambda value: interpreter_path(value, Path.cwd()),
        default=sys.executable, help="interpreter to run SCRIPT with (default: this one)")
    parser.add_argument("--listen", metavar="[HOST:]PORT", required=True,
                        help="where a DAP client attaches (HOST defaults to 127.0.0.1)")
    parser.add_argument("--wait-for-client", action="store_true",
                        help="start the program only once a client has attached")
    parser.add_argument("--eager", action="store_true",
                        help="run graph functions eagerly: breakpoints stop on every call and "
                        "every tf.data element, with real values (graph-only errors vanish)")
    parser.add_argument("-m", dest="module", metavar="MODULE",
                        help="run MODULE as `python -m MODULE` does")
    parser.add_argument("script", metavar="SCRIPT", nargs="?", help="the Python script to run")
    parser.add_argument("args", metavar="ARGS", nargs=argparse.REMAINDER,
                        help="arguments for the script")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.module is not None:  # after `-m MODULE`, every word is the module's
        target, words = args.module, [*([args.script] if args.script else []), *args.args]
    elif args.script is not None:
        target, words = args.script, list(args.args)
    else:
        print("tf-insight debug: give a SCRIPT or -m MODULE", file=sys.stderr)
        return EXIT_USAGE
    line = command_line(args.python, target, words, module=args.module is not None,
                        eager=args.eager, listen=args.listen,
                        wait_for_client=args.wait_for_client)
    sys.stdout.flush()
    try:
        os.execvp(line[0], line)
    except OSError as error:
        print(f"tf-insight debug: cannot run {args.python}: {error}", file=sys.stderr)
    return EXIT_USAGE
