"""Every way a session can go wrong ends with a clear result and nothing left running."""

from __future__ import annotations

import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.session.helpers import Run, assert_nothing_left_running, marker_line, script
from tf_insight.session import TraceConfig, TraceResult, run_trace
from tf_insight.session.processes import descendants

pytestmark = pytest.mark.slow


def test_uncaught_exception_is_recorded_with_the_scripts_own_traceback() -> None:
    run = Run("raises.py")
    assert_nothing_left_running()
    result = run.result
    assert (result.status, result.exit_code) == ("failed", 1)
    assert result.exception is not None
    assert result.exception.type == "FileNotFoundError"
    assert result.exception.message == "no such dataset: missing.csv"
    first_frame = result.exception.traceback.splitlines()[1]
    assert first_frame.startswith(f'  File "{script("raises.py")}"')  # no bootstrap frames
    assert f"line {marker_line('raises.py', 'raise')}" in result.exception.traceback
    assert result.verdict is not None and result.verdict.title
    assert "FileNotFoundError: no such dataset" in run.stderr


def test_early_exit_without_cleanup() -> None:
    run = Run("exits_early.py")
    assert_nothing_left_running()
    assert (run.result.status, run.result.exit_code) == ("failed", 3)
    assert run.result.exception is None and run.result.problems == []
    assert "leaving early" in run.stdout


def test_sys_exit_code_is_kept() -> None:
    run = Run("sys_exit.py")
    assert_nothing_left_running()
    assert (run.result.status, run.result.exit_code) == ("failed", 4)
    assert run.result.exception is None
    assert "calling sys.exit(4)" in run.stdout


def test_hang_is_killed_at_the_timeout_with_its_escaped_child() -> None:
    run = Run("hangs.py", timeout_s=10)
    found = re.search(r"child (\d+)", run.stdout)
    assert found, run.output
    assert_nothing_left_running(extra_pids=(int(found.group(1)),))
    assert run.result.status == "timeout"
    assert run.result.exit_code == -9
    assert any("longer than 10 s" in problem for problem in run.result.problems)


def test_cancel_stops_promptly_and_leaves_nothing() -> None:
    cancel = threading.Event()
    output: list[str] = []
    config = TraceConfig(script=script("hangs.py"), output=lambda _s, text: output.append(text))
    outcome = []
    worker = threading.Thread(target=lambda: outcome.append(run_trace(config, cancel=cancel)))
    worker.start()
    deadline = time.monotonic() + 60
    while "child" not in "".join(output) and time.monotonic() < deadline:
        time.sleep(0.05)
    cancel.set()
    worker.join(60)  # the script would sleep 600 s: returning at all means cancel worked
    assert not worker.is_alive()
    child = int(re.search(r"child (\d+)", "".join(output)).group(1))  # type: ignore[union-attr]
    assert_nothing_left_running(extra_pids=(child,))
    assert outcome[0].status == "cancelled"


def test_threads_run_and_a_thread_exception_is_recorded() -> None:
    run = Run("threads.py")
    assert_nothing_left_running()
    assert (run.result.status, run.result.exit_code) == ("completed", 0)
    assert "results [499500]" in run.stdout
    exception = run.result.exception
    assert exception is not None and exception.thread == "failing"
    assert exception.type == "RuntimeError" and exception.message == "worker failed"


def test_adapter_dying_mid_run_stops_the_script() -> None:
    run = Run("kills_adapter.py")
    assert_nothing_left_running()
    assert run.result.status == "error" and run.result.exit_code == -9
    assert "still running after the adapter died" not in run.stdout
    assert any("debug adapter exited mid-run" in problem and "script was stopped" in problem
               for problem in run.result.problems)


def _spawned(output: str) -> tuple[int, int]:
    found = re.search(r"child (\d+) daemon (\d+)", output)
    assert found, output
    return int(found.group(1)), int(found.group(2))


def test_setsid_child_and_double_forked_daemon_end_with_a_normal_exit() -> None:
    run = Run("spawns_daemons.py")
    assert (run.result.status, run.result.exit_code) == ("completed", 0)
    assert_nothing_left_running(extra_pids=_spawned(run.stdout))


def test_setsid_child_and_double_forked_daemon_end_at_the_timeout() -> None:
    run = Run("spawns_daemons.py", args=["hang"], timeout_s=10)
    assert run.result.status == "timeout"
    assert_nothing_left_running(extra_pids=_spawned(run.stdout))


def test_setsid_child_and_double_forked_daemon_end_with_a_cancel() -> None:
    cancel = threading.Event()
    output: list[str] = []
    config = TraceConfig(script=script("spawns_daemons.py"), args=["hang"],
                         output=lambda _s, text: output.append(text))
    outcome: list[TraceResult] = []
    worker = threading.Thread(target=lambda: outcome.append(run_trace(config, cancel=cancel)))
    worker.start()
    deadline = time.monotonic() + 60
    while "daemon" not in "".join(output) and time.monotonic() < deadline:
        time.sleep(0.05)
    cancel.set()
    worker.join(60)
    assert not worker.is_alive() and outcome[0].status == "cancelled"
    assert_nothing_left_running(extra_pids=_spawned("".join(output)))


def test_a_hanging_interpreter_leaves_no_probe_resolver(tmp_path: Path) -> None:
    """An interpreter that never answers: the session fails, and the probe resolver started
    with it is gone too."""
    hanging = tmp_path / "python"
    hanging.write_text("#!/bin/sh\nexec sleep 600\n")
    hanging.chmod(0o755)
    run = Run("raises.py", python=str(hanging), timeout_s=8)
    assert run.result.status in ("error", "timeout")
    assert_nothing_left_running()


def _bare_venv(folder: Path) -> str:
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True)
    return str(folder / "bin" / "python")


def test_interpreter_without_debugpy_and_tensorflow_says_how_to_install(tmp_path: Path) -> None:
    python = _bare_venv(tmp_path / "bare")
    run = Run("raises.py", python=python)
    assert_nothing_left_running()
    assert run.result.status == "error" and run.result.exit_code is None
    (problem,) = run.result.problems
    assert "debugpy and tensorflow not installed" in problem
    assert f"{python} -m pip install debugpy tensorflow-cpu" in problem


def test_interpreter_without_tensorflow_says_how_to_install(tmp_path: Path) -> None:
    python = _bare_venv(tmp_path / "no-tf")
    # Only debugpy visible: a folder holding a link to it, added through a .pth file.
    only_debugpy = tmp_path / "only-debugpy"
    only_debugpy.mkdir()
    import debugpy

    (only_debugpy / "debugpy").symlink_to(Path(debugpy.__file__).parent)
    site = next((tmp_path / "no-tf" / "lib").glob("python*/site-packages"))
    (site / "debugpy.pth").write_text(f"{only_debugpy}\n")
    run = Run("raises.py", python=python)
    assert_nothing_left_running()
    (problem,) = run.result.problems
    assert problem.startswith("tensorflow not installed")
    assert f"{python} -m pip install tensorflow-cpu" in problem


def test_the_editor_extensions_bundled_debugpy_serves_an_interpreter_without_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The extension installs nothing into the user's interpreter: its bundle's debugpy
    (`TF_INSIGHT_BUNDLE`/debugpy) runs the adapter and the debuggee there."""
    import debugpy

    python = _bare_venv(tmp_path / "tf-only")
    # Everything of ours but debugpy visible (TensorFlow included), through a .pth file.
    ours = Path(debugpy.__file__).parents[1]
    visible = tmp_path / "visible"
    visible.mkdir()
    for entry in ours.iterdir():
        if not entry.name.startswith("debugpy"):
            (visible / entry.name).symlink_to(entry)
    site = next((tmp_path / "tf-only" / "lib").glob("python*/site-packages"))
    (site / "visible.pth").write_text(f"{visible}\n")
    (problem,) = Run("raises.py", python=python).result.problems
    assert problem.startswith("debugpy not installed")

    bundled = tmp_path / "bundle" / "debugpy"
    bundled.mkdir(parents=True)
    for entry in ours.glob("debugpy*"):
        (bundled / entry.name).symlink_to(entry)
    monkeypatch.setenv("TF_INSIGHT_BUNDLE", str(tmp_path / "bundle"))
    run = Run("raises.py", python=python)
    assert_nothing_left_running()
    assert run.result.problems == []
    assert (run.result.status, run.result.exit_code) == ("failed", 1)
    assert run.result.exception is not None
    assert run.result.exception.type == "FileNotFoundError"
    assert run.result.versions["debugpy"] == debugpy.__version__


def test_missing_script_and_missing_interpreter_are_clear() -> None:
    assert run_trace(TraceConfig(script="no/such/script.py")).problems == [
        "script not found: no/such/script.py"
    ]
    result = run_trace(TraceConfig(script=script("raises.py"), python="/no/such/python"))
    assert result.problems == ["Python interpreter not found: /no/such/python"]


def test_cancel_while_tensorflow_imports_before_the_debugger_attached() -> None:
    cancel = threading.Event()
    threading.Timer(1.0, cancel.set).start()
    config = TraceConfig(script=script("retrace_ints.py"), output=lambda _s, _t: None)
    result = run_trace(config, cancel=cancel)
    assert_nothing_left_running()
    assert result.status == "cancelled" and result.steps == []
    assert result.exit_code == -9


CLIENT = """
import sys
from tf_insight.session import TraceConfig, TraceResult, run_trace
run_trace(TraceConfig(script=sys.argv[1], output=lambda _s, text: print(text, end="", flush=True)))
"""


def test_a_client_killed_outright_takes_the_debuggee_and_adapter_with_it() -> None:
    client = subprocess.Popen(
        [sys.executable, "-c", CLIENT, script("hangs.py")], stdout=subprocess.PIPE, text=True
    )
    assert client.stdout is not None
    line = client.stdout.readline()  # "child <pid>": the script runs under the debugger
    found = re.search(r"child (\d+)", line)
    assert found, line
    session = descendants(client.pid)
    assert len(session) >= 3  # bootstrap, adapter, the script's child
    client.kill()  # no cleanup can run in the client now
    client.wait()
    client.stdout.close()
    assert_nothing_left_running(extra_pids=(*session, int(found.group(1))))
