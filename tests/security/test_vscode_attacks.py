"""The malicious workspace in real VS Code (code-server + Playwright, client/e2e/attack.mjs):
opened untrusted (Restricted Mode) and trusted, TF Insight analyses it, offers no guided
session in Restricted Mode, and none of the workspace's payloads runs. Screenshots in
test-artifacts/vscode-attack-*/ (slow: a code-server per scenario)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.client.conftest import ROOT, node_modules, vsix  # noqa: F401  (the fixtures)

STEPS = {
    "attack-untrusted": ["workbench", "restricted-mode", "diagnostics", "no-guided-session",
                         "nothing-ran"],
    "attack-trusted": ["workbench", "diagnostics", "nothing-ran"],
}


@pytest.mark.slow
@pytest.mark.timeout(1800)
@pytest.mark.usefixtures("vsix")
@pytest.mark.parametrize("scenario", sorted(STEPS))
def test_opening_the_workspace_runs_none_of_it(scenario: str) -> None:
    env = {**os.environ, "TFI_E2E_SCENARIO": scenario, "TFI_E2E_SKIP_BUILD": "1"}
    env.setdefault("PYTHON", sys.executable)
    result = subprocess.run(["bash", "client/e2e/run.sh"], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=1700)
    artifacts = ROOT / "test-artifacts" / f"vscode-{scenario}"
    report = artifacts / "results.json"
    summary = json.loads(report.read_text()) if report.exists() else {"results": []}
    lines = [f"{'PASS' if r['ok'] else 'FAIL'} {r['step']}: {r['detail']}"
             for r in summary["results"]]
    assert result.returncode == 0, "\n".join(lines) + f"\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    assert [r["step"] for r in summary["results"]] == STEPS[scenario]
    marker = artifacts / "marker.txt"
    assert not marker.exists() or marker.read_text() == ""
