"""Running real trace sessions in tests: the scripts, their `# @marker` lines, and the check
that a session left no process behind."""

from __future__ import annotations

import os
import re
import sys
import time
from pathlib import Path

from tf_insight.session import Step, TraceConfig, TraceResult, run_trace
from tf_insight.session.processes import descendants

SCRIPTS = Path(__file__).resolve().parent / "scripts"
PYTHON = sys.executable
LEGACY_KERAS = {"TF_USE_LEGACY_KERAS": "1"}


def script(name: str) -> str:
    return str(SCRIPTS / name)


def marker_line(name: str, marker: str) -> int:
    """The line of `script` carrying `# @marker`."""
    pattern = re.compile(rf"#\s*@{re.escape(marker)}\b")
    for number, line in enumerate((SCRIPTS / name).read_text().splitlines(), start=1):
        if pattern.search(line):
            return number
    raise LookupError(f"no @{marker} in {name}")


class Run:
    """One real session: the result, the steps as streamed, and the script's output."""

    def __init__(self, name: str, **options: object) -> None:
        self.streamed: list[Step] = []
        self.output: list[tuple[str, str]] = []
        config = TraceConfig(
            script=script(name),
            python=str(options.pop("python", PYTHON)),
            output=lambda stream, text: self.output.append((stream, text)),
            **options,  # type: ignore[arg-type]
        )
        self.result: TraceResult = run_trace(config, on_step=self.streamed.append)

    @property
    def stdout(self) -> str:
        return "".join(text for stream, text in self.output if stream == "stdout")

    @property
    def stderr(self) -> str:
        return "".join(text for stream, text in self.output if stream == "stderr")

    def steps(self, probe: str) -> list[Step]:
        return [step for step in self.result.steps if step.probe == probe]


def assert_nothing_left_running(extra_pids: tuple[int, ...] = ()) -> None:
    """No child of the test process and none of `extra_pids` may still be alive."""
    deadline = time.monotonic() + 5
    while True:
        left = descendants(os.getpid()) + [pid for pid in extra_pids if _alive(pid)]
        if not left or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert left == [], f"left running: {[_command(pid) for pid in left]}"


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return state[state.rfind(")") + 2] != "Z"


def _command(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return str(pid)
