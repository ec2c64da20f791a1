"""`python debug_main.py [--listen [HOST:]PORT [--wait-for-client]] [--eager] (SCRIPT | -m
MODULE) [ARGS...]`: the user's program, with breakpoints that stop inside graph code.

Run in the user's interpreter, either by `tf-insight debug` (which listens for a DAP client as
`python -m debugpy --listen` does) or as the program of a debugpy `launch` (VS Code: debugpy
is already attached). Before the program runs:
- AutoGraph's converted code is compiled at the user's lines (`graph_lines`), so breakpoints in
  a `tf.function`, a tf-keras `call` or a `Dataset.map` function stop while TF traces it;
- `tfi()` in the debug console says what TensorFlow and Keras are doing at the stop (`stops`);
- with `--eager`, graph functions run eagerly (`tf.config.run_functions_eagerly`, tf.data's
  debug mode) and tf.data's threads are made visible to the debugger, so the same
  breakpoints stop on every call and every element, with real values.
Standard library only, besides debugpy and TensorFlow where asked for.
"""

from __future__ import annotations

import argparse
import builtins
import importlib
import importlib.util
import json
import os
import runpy
import sys
import threading
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE = "_tf_insight_debuggee"
EXIT_USAGE = 2
EAGER_NOTE = ("tf-insight debug --eager: graph functions run eagerly, so breakpoints stop on "
              "every call and element with real values; errors that happen only in graph mode "
              "(the custom_gradient keyword error, for one) will not. Run without --eager to "
              "debug the graph-mode behaviour.")


def main(argv: list[str]) -> int:
    options = _parser().parse_args(argv)
    if options.module is None and options.script is None:
        print("tf-insight debug: give a SCRIPT or -m MODULE", file=sys.stderr)
        return EXIT_USAGE
    if options.module is None and not os.path.isfile(options.script):
        print(f"tf-insight debug: no script at {os.path.abspath(options.script)}",
              file=sys.stderr)
        return EXIT_USAGE
    _load_package()
    graph_lines = importlib.import_module(f"{PACKAGE}.graph_lines")
    graph_lines.install()
    stops = importlib.import_module(f"{PACKAGE}.stops")
    builtins.tfi = stops.tfi  # type: ignore[attr-defined]
    builtins.__tf_insight_stop__ = stops.here  # type: ignore[attr-defined]
    if options.listen is not None and not _listen(
            options.listen, options.wait_for_client, library_rules(graph_lines.generated_files())):
        return EXIT_USAGE
    if options.eager and not _run_eagerly():
        return EXIT_USAGE
    target = options.module if options.module is not None else options.script
    words = [options.script] if options.module is not None and options.script else []
    sys.argv = [target, *words, *options.args]
    if options.module is not None:
        sys.path[0] = os.getcwd()
        runpy.run_module(target, run_name="__main__", alter_sys=True)
    else:
        sys.path[0] = os.path.dirname(os.path.abspath(target))
        runpy.run_path(target, run_name="__main__")
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tf-insight debug")
    parser.add_argument("--listen", metavar="[HOST:]PORT")
    parser.add_argument("--wait-for-client", action="store_true")
    parser.add_argument("--eager", action="store_true")
    parser.add_argument("-m", dest="module", metavar="MODULE")
    parser.add_argument("script", metavar="SCRIPT", nargs="?")
    parser.add_argument("args", nargs=argparse.REMAINDER)
    return parser


def _load_package() -> None:
    """This folder as the package PACKAGE (the user's interpreter lacks tf_insight)."""
    spec = importlib.util.spec_from_file_location(
        PACKAGE, os.path.join(HERE, "__init__.py"), submodule_search_locations=[HERE])
    assert spec is not None and spec.loader is not None
    package = importlib.util.module_from_spec(spec)
    sys.modules[PACKAGE] = package
    spec.loader.exec_module(package)


def library_rules(generated_files: str) -> dict[str, bool]:
    """Globs of the files the debugger never stops or steps in (True: excluded): this
    package, and AutoGraph's scaffolding (`generated_files`: the generated functions that hold
    none of the user's statements)."""
    return {os.path.join(HERE, "**"): True, generated_files: True}


def _listen(address: str, wait: bool, rules: dict[str, bool]) -> bool:
    """Listen for a DAP client, as `python -m debugpy --listen` does."""
    host, _, port_text = address.rpartition(":")
    try:
        port = int(port_text)
    except ValueError:
        print(f"tf-insight debug: --listen {address}: the port must be a number", file=sys.stderr)
        return False
    # Read by pydevd as it starts: a client's own `rules` replace these.
    os.environ["PYDEVD_FILTERS"] = json.dumps(rules)
    os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")  # a warning about frozen stdlib
    try:
        import debugpy
    except ImportError:
        print(f"tf-insight debug: debugpy is not installed in {sys.executable} "
              f"(pip install debugpy)", file=sys.stderr)
        return False
    debugpy.configure(subProcess=False)
    try:
        listening = debugpy.listen((host or "127.0.0.1", port))
    except (OSError, RuntimeError) as error:
        print(f"tf-insight debug: cannot listen on {address}: {error}", file=sys.stderr)
        return False
    print(f"tf-insight debug: a DAP client can attach to {listening[0]}:{listening[1]}",
          file=sys.stderr, flush=True)
    if wait:
        debugpy.wait_for_client()
    return True


def _run_eagerly() -> bool:
    """Graph functions run eagerly; tf.data's map functions too, on threads the debugger
    now traces. False (said why) when TensorFlow cannot be imported."""
    try:
        tf = importlib.import_module("tensorflow")
        script_ops = importlib.import_module("tensorflow.python.ops.script_ops")
    except ImportError as error:
        print(f"tf-insight debug --eager: TensorFlow cannot be imported in {sys.executable}: "
              f"{error}", file=sys.stderr)
        return False
    tf.config.run_functions_eagerly(True)
    tf.data.experimental.enable_debug_mode()
    traced = threading.local()
    run_element = script_ops.EagerFunc.__call__

    def __call__(self: Any, *args: Any, **kwargs: Any) -> Any:
        # tf.data runs an eager map function on its own threads, which the debugger does not
        # trace unless told to: once per thread.
        if not getattr(traced, "done", False):
            traced.done = True
            debugpy = sys.modules.get("debugpy")
            if debugpy is not None:
                debugpy.debug_this_thread()
        return run_element(self, *args, **kwargs)

    script_ops.EagerFunc.__call__ = __call__
    print(EAGER_NOTE, file=sys.stderr, flush=True)
    return True


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
