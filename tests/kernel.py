"""A real IPython kernel driven by jupyter_client: code in, what Jupyter shows out.

Used in this interpreter by `tests/ipython`, and as a script in other interpreters (it needs
only jupyter_client there) by `tests/explain/pastes/make.py` and the VS Code end-to-end run:

    python tests/kernel.py script SCRIPT ARGV_JSON LEGACY_KERAS  # SCRIPT run as one cell: its output
    python tests/kernel.py notebook OUT.ipynb CELL_FILE...        # cells run, notebook written
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from jupyter_client.manager import start_new_kernel

SHOWN = ("stream", "error", "display_data", "execute_result")


class Kernel:
    def __init__(self, environment: dict[str, str] | None = None) -> None:
        self.manager, self.client = start_new_kernel(
            kernel_name="python3", env={**os.environ, **(environment or {})})
        self.execution_count: int | None = None  # of the last cell run

    def run(self, code: str, timeout: float = 600) -> list[dict[str, Any]]:
        """The outputs of one cell, in order: each message's content with its `type`."""
        msg_id = self.client.execute(code)
        outputs = []
        while True:
            message = self.client.get_iopub_msg(timeout=timeout)
            if message["parent_header"].get("msg_id") != msg_id:
                continue
            kind, content = message["msg_type"], message["content"]
            if kind == "execute_input":
                self.execution_count = content["execution_count"]
            elif kind in SHOWN:
                outputs.append({"type": kind, **content})
            elif kind == "status" and content["execution_state"] == "idle":
                return outputs

    def stop(self) -> None:
        self.client.stop_channels()
        self.manager.shutdown_kernel(now=True)


def shown_text(outputs: list[dict[str, Any]]) -> str:
    """Streams and tracebacks as a user copies them from the cell (TF logs to stdout there)."""
    parts = []
    for output in outputs:
        if output["type"] == "stream":
            parts.append(output["text"])
        elif output["type"] == "error":
            parts.append("\n".join(output["traceback"]) + "\n")
    return "".join(parts)


def notebook_output(output: dict[str, Any]) -> dict[str, Any]:
    kind = output["type"]
    if kind == "stream":
        return {"output_type": kind, "name": output["name"], "text": output["text"]}
    if kind == "error":
        return {"output_type": kind, "ename": output["ename"], "evalue": output["evalue"],
                "traceback": output["traceback"]}
    shown = {"output_type": kind, "data": output["data"], "metadata": output.get("metadata", {})}
    if kind == "execute_result":
        shown["execution_count"] = output["execution_count"]
    return shown


def write_notebook(path: Path, cells: list[str], kernel: Kernel) -> None:
    """Run `cells` in order, as "Run All" would, and save them with their outputs."""
    saved = []
    for source in cells:
        outputs = kernel.run(source)
        saved.append({"cell_type": "code", "execution_count": kernel.execution_count,
                      "metadata": {}, "source": source.splitlines(keepends=True),
                      "outputs": [notebook_output(output) for output in outputs]})
    notebook = {"cells": saved, "nbformat": 4, "nbformat_minor": 5,
                "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                            "language": "python"},
                             "language_info": {"name": "python"}}}
    path.write_text(json.dumps(notebook, indent=1) + "\n")


def main(arguments: list[str]) -> None:
    command = arguments[0]
    if command == "script":
        script, argv, legacy = arguments[1], json.loads(arguments[2]), arguments[3] == "1"
        kernel = Kernel({"TF_USE_LEGACY_KERAS": "1" if legacy else "0"})
        try:
            kernel.run("import sys; sys.argv = " + repr(["script.py", *argv]))
            sys.stdout.write(shown_text(kernel.run(Path(script).read_text())))
        finally:
            kernel.stop()
    elif command == "notebook":
        kernel = Kernel({"TF_CPP_MIN_LOG_LEVEL": "2"})
        try:
            write_notebook(Path(arguments[1]), [Path(cell).read_text() for cell in arguments[2:]],
                           kernel)
        finally:
            kernel.stop()
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
