"""The README's quick start, pre-commit hook and CI step do what it says, as written; its links
and the docs' links lead somewhere."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tf_insight.config import tomllib

ROOT = Path(__file__).parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
BIN = Path(sys.executable).parent  # the project's venv: tf-insight and pre-commit are there


def block(name: str) -> str:
    """The fenced block between `<!-- NAME:start … -->` and `<!-- NAME:end -->`."""
    match = re.search(rf"<!-- {name}:start[^>]*-->\n```\w*\n(.*?)```\n<!-- {name}:end -->",
                      README, re.S)
    assert match is not None, f"no {name} block in README.md"
    return match.group(1)


QUICK_START = block("quick-start")
COMMANDS = [line.split("  #")[0].strip() for line in QUICK_START.splitlines()]
# What each tf-insight command of the quick start prints (stdout), and its exit status.
EXPECTED = {
    "tf-insight check examples/": (1, [
        "examples/bert4keras_recompute.py:30:6: TFI001 [*] ",
        "examples/remat_scope_dropout.py:13:14: TFI001 `Dropout` is built under",
        "  = help: ",
    ]),
    "tf-insight explain examples/tracebacks/remat_scope_dropout.txt --root examples": (0, [
        "RematScope / keras.remat wrapped a layer that receives `training` or `mask`",
        "examples/remat_scope_dropout.py:12:",
        "Fix:",
    ]),
    "tf-insight trace examples/remat_scope_dropout.py": (1, [
        "tf-insight trace examples/remat_scope_dropout.py: failed, exit code 1",
        "Verdict  RematScope / keras.remat wrapped a layer",
        "at examples/remat_scope_dropout.py:17 in <module>",
        "custom_gradient._graph_mode_decorator",
    ]),
}


def environment(**more: str) -> dict[str, str]:
    return {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}",
            "TF_CPP_MIN_LOG_LEVEL": "3", **more}


def test_the_quick_start_is_install_then_the_three_commands() -> None:
    assert COMMANDS[0] == "python3 -m venv .venv && source .venv/bin/activate"
    assert COMMANDS[1].startswith("pip install -e \".[server,session]\" ")
    assert [c for c in COMMANDS if c.startswith("tf-insight")] == list(EXPECTED)


def test_the_install_line_names_what_pyproject_has() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert {"server", "session"} <= set(project["optional-dependencies"])
    tensorflow = shlex.split(COMMANDS[1])[-1]
    assert tensorflow in project["optional-dependencies"]["tf"][0]  # the same versions


@pytest.mark.parametrize("command", list(EXPECTED))
def test_quick_start_command(command: str) -> None:
    """Each command as written, with the project's venv first on PATH (as after `source`),
    from the repository's root, where the quick start runs."""
    result = subprocess.run(command, shell=True, cwd=ROOT, env=environment(),
                            capture_output=True, text=True, timeout=300)
    status, lines = EXPECTED[command]
    assert result.returncode == status, result.stdout + result.stderr
    for line in lines:
        assert line in result.stdout, (line, result.stdout)


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_quick_start_in_a_fresh_copy(tmp_path: Path) -> None:
    """The whole block run by bash, line by line, in a copy of the repository's files (a fresh
    clone's): a new .venv, the install from the index, then the three commands."""
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                           check=True).stdout.decode().split("\0")
    clone = tmp_path / "tf-insight"
    for name in filter(None, files):
        source = ROOT / name
        if source.is_file():
            (clone / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, clone / name)
    script = "set -u\n" + "".join(
        f"{command}\necho \"== exit $? =={index}\"\n" for index, command in enumerate(COMMANDS))
    result = subprocess.run(["bash", "-c", script], cwd=clone, capture_output=True, text=True,
                            env={k: v for k, v in environment().items() if k != "VIRTUAL_ENV"},
                            timeout=840)
    parts = re.split(r"== exit (\d+) ==(\d+)\n", result.stdout)
    outputs = {COMMANDS[int(index)]: (int(status), text)
               for text, status, index in zip(parts[0::3], parts[1::3], parts[2::3],
                                                  strict=False)}
    assert len(outputs) == len(COMMANDS), result.stdout[-2000:] + result.stderr[-2000:]
    assert outputs[COMMANDS[1]][0] == 0, result.stderr[-2000:]
    assert (clone / ".venv" / "bin" / "tf-insight").exists()
    for command, (status, lines) in EXPECTED.items():
        assert outputs[command][0] == status, (command, outputs[command][1][-2000:])
        for line in lines:
            assert line in outputs[command][1], (command, line)


HAZARD = "import tensorflow as tf\n\n\n@tf.function\ndef f(x):\n    print(x)\n    return x\n"


def git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
                   cwd=cwd, check=True, capture_output=True)


def test_the_pre_commit_hook_as_written(tmp_path: Path) -> None:
    repository = tmp_path / "repository"
    repository.mkdir()
    (repository / ".pre-commit-config.yaml").write_text(block("pre-commit"))
    (repository / "train.py").write_text(HAZARD)
    (repository / "notes.md").write_text("not Python\n")
    git("init", "-q", cwd=repository)
    git("add", "train.py", "notes.md", ".pre-commit-config.yaml", cwd=repository)
    git("commit", "-qm", "a hazard", cwd=repository)

    def pre_commit() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "pre_commit", "run", "--all-files"], cwd=repository,
            env=environment(PRE_COMMIT_HOME=str(tmp_path / "home")), capture_output=True,
            text=True, timeout=300)

    found = pre_commit()
    assert found.returncode == 1, found.stdout + found.stderr
    assert "train.py:6:5: TFI006 " in found.stdout
    (repository / "train.py").write_text("import tensorflow as tf\n")
    clean = pre_commit()
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "Passed" in clean.stdout


def test_the_ci_check_step_as_written(tmp_path: Path) -> None:
    step = re.search(r"- run: (tf-insight check \. --output-format sarif[^\n]*)", README)
    assert step is not None
    (tmp_path / "train.py").write_text(HAZARD)
    hidden = tmp_path / ".tf-insight" / "examples"  # TF Insight's own checkout: left out
    hidden.mkdir(parents=True)
    shutil.copy2(ROOT / "examples" / "global_capture.py", hidden)
    result = subprocess.run(step.group(1), shell=True, cwd=tmp_path, env=environment(),
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    sarif = json.loads((tmp_path / "tf-insight.sarif").read_text())
    results = sarif["runs"][0]["results"]
    assert [(r["ruleId"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"])
            for r in results] == [("TFI006", "train.py")]


LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


@pytest.mark.parametrize("document", ["README.md", *sorted(
    str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md"))])
def test_relative_links_lead_somewhere(document: str) -> None:
    path = ROOT / document
    text = path.read_text(encoding="utf-8")
    anchors = {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-")
               for h in re.findall(r"^#+ (.*)$", text, re.M)}
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target):
            continue
        name, _, anchor = target.partition("#")
        if not name:
            assert anchor in anchors, (document, target)
            continue
        assert (path.parent / name).exists(), (document, target)
