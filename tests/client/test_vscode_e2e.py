"""End-to-end: the packaged .vsix in real VS Code (code-server 4.139.1), driven by Playwright in
Debian's Chromium — diagnostics, Problems panel, hover, quick fix, Explain panel (on a
traceback, and on a notebook cell's error output from a real kernel run), and a guided
session on the RematScope script ending with the TFI001 verdict, and VS Code's own debugger
stopping at a gutter breakpoint in a tf.function (each trace, then eagerly each call).

Runs `client/e2e/run.sh` (toolchain cached in `.tools/`: the first run installs Node 24 and
code-server from npm, a few minutes). Screenshots and results.json: test-artifacts/vscode/.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.client.conftest import ROOT

ARTIFACTS = ROOT / "test-artifacts" / "vscode"
EXPECTED_STEPS = [
    "workbench", "diagnostics", "problems-panel", "hover", "quick-fix", "explain-rule-action", "explain",
    "explain-open-frame", "explain-apply-fix", "explain-notebook-output", "session-start", "session-verdict", "inline-annotations",
    "annotation-hover", "walk-next-step", "verdict-panel", "status-bar", "notebook-session",
    "debug-breakpoint", "debug-retrace", "debug-eagerly",
    "bundled-server",
]


@pytest.mark.slow
@pytest.mark.timeout(3600)
def test_vscode_end_to_end(vsix: Path) -> None:
    env = {**os.environ, "TFI_E2E_SKIP_BUILD": "1"}
    env.setdefault("PYTHON", sys.executable)
    result = subprocess.run(["bash", "client/e2e/run.sh"], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=3500)
    report = ARTIFACTS / "results.json"
    summary = json.loads(report.read_text()) if report.exists() else {"results": []}
    lines = [f"{'PASS' if r['ok'] else 'FAIL'} {r['step']}: {r['detail']}" for r in summary["results"]]
    print("\n".join(lines))
    assert result.returncode == 0, (
        f"client/e2e/run.sh exited {result.returncode}\n" + "\n".join(lines)
        + f"\n--- stdout ---\n{result.stdout[-4000:]}\n--- stderr ---\n{result.stderr[-4000:]}")
    assert [r["step"] for r in summary["results"]] == EXPECTED_STEPS
