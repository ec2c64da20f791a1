"""Snapshots of what each rule says and writes, as ruff's `.snap` files: for every fixture
`tests/rules/fixtures/tfiNNN*.py`, its findings of that rule (position, message, detail, help,
related places) and each fix's title and diff, applied alone to the fixture, in
`tests/rules/snapshots/<fixture>.snap`.

The fixture tests lock where a rule reports; these lock the text a user reads and the code a fix
writes. A change to either shows as a diff of the snapshot: review it, then write the new
snapshots with `TFI_UPDATE_SNAPSHOTS=1 .venv/bin/python -m pytest tests/rules/test_snapshots.py`
and commit them with the change. A missing snapshot fails (CI never writes one)."""

from __future__ import annotations

import ast
import difflib
import os
from pathlib import Path

import pytest

from tests.markers import settings
from tests.rules.test_fixtures import FIXTURE_FILES, code_of
from tf_insight.check import rules
from tf_insight.check.analyzer import analyze_source
from tf_insight.check.fixes import apply_fixes
from tf_insight.check.project import Project
from tf_insight.config import from_mapping
from tf_insight.findings import Finding

SNAPSHOTS = Path(__file__).parent / "snapshots"
UPDATE = os.environ.get("TFI_UPDATE_SNAPSHOTS") == "1"


def snapshot(path: Path) -> str:
    """The findings of the fixture's rule in the fixture, as a user reads them, with the diff
    each fix makes on its own."""
    code = code_of(path)
    text = path.read_text(encoding="utf-8")
    project = Project(config=from_mapping(settings(path)), root=path.parent)
    findings = [f for f in analyze_source(text, path.name, project).findings if f.code == code]
    return "".join(_finding(f, text, path) for f in findings) or "(no findings)\n"


def _finding(finding: Finding, text: str, path: Path) -> str:
    name = path.name
    span = finding.span
    out = [f"{name}:{span.line}:{span.column + 1}-{span.end_line}:{span.end_column + 1}: "
           f"{finding.code} {finding.name}\n",
           f"  {finding.message}\n"]
    out += [f"  {label}: {text}\n" for label, text in
            (("detail", finding.detail), ("help", finding.help)) if text]
    out += [f"  related {_relative(r.path, path.parent)}:{r.span.line}:{r.span.column + 1}: "
            f"{r.message}\n" for r in finding.related]
    if finding.fix is not None:
        fixed, applied = apply_fixes(text, [finding.fix])
        assert applied == 1
        ast.parse(fixed)  # a fix never leaves code that does not parse
        diff = difflib.unified_diff(text.splitlines(keepends=True), fixed.splitlines(keepends=True),
                                    f"a/{name}", f"b/{name}", n=1)
        out.append(f"  fix: {finding.fix.description}\n")
        out += [f"    {line}" if line.endswith("\n") else f"    {line}\n" for line in diff]
    return "".join(out) + "\n"


def _relative(path: str, folder: Path) -> str:
    """Places in other fixtures, named as from the fixtures' folder (not this checkout's)."""
    return os.path.relpath(path, folder) if os.path.isabs(path) else path


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=lambda p: p.name)
def test_messages_and_fixes_match_the_snapshot(path: Path) -> None:
    stored = SNAPSHOTS / f"{path.stem}.snap"
    now = snapshot(path)
    if UPDATE:
        SNAPSHOTS.mkdir(exist_ok=True)
        stored.write_text(now, encoding="utf-8")
    assert stored.exists(), f"no snapshot: run with TFI_UPDATE_SNAPSHOTS=1 to write {stored.name}"
    assert now == stored.read_text(encoding="utf-8")


def test_every_snapshot_has_its_fixture() -> None:
    assert {p.stem for p in SNAPSHOTS.glob("*.snap")} == {p.stem for p in FIXTURE_FILES}


def test_every_rule_that_offers_a_fix_has_one_in_a_snapshot() -> None:
    """A rule whose documented example gets a fix has at least one fix under test here."""
    snapshots = "".join(p.read_text(encoding="utf-8") for p in SNAPSHOTS.glob("*.snap"))
    for rule in rules.RULES:
        selected = Project(config=from_mapping({"select": rule.code}))
        example = analyze_source(rule.code_example("Example"), "example.py", selected).findings
        if any(f.fix for f in example if f.code == rule.code):
            fixed_here = [block for block in snapshots.split("\n\n")
                          if f": {rule.code} " in block and "\n  fix: " in block]
            assert fixed_here, f"{rule.code} offers fixes, and no snapshot shows one"
