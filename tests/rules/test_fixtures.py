"""Each rule has fixtures `tests/rules/fixtures/tfiNNN*.py`: every line marked
`# expect: TFINNN` must be reported, and nothing else of that code (the correct forms in the
same file stay clean)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.markers import expected, settings
from tf_insight.check import rules
from tf_insight.check.analyzer import analyze_source
from tf_insight.check.project import Project
from tf_insight.config import from_mapping

FIXTURES = Path(__file__).parent / "fixtures"
FIXTURE_FILES = sorted(FIXTURES.glob("tfi*.py"))


def code_of(path: Path) -> str:
    return path.name[:6].upper()


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=lambda p: p.name)
def test_fixture_findings_match_markers(path: Path) -> None:
    code = code_of(path)
    project = Project(config=from_mapping(settings(path)), root=FIXTURES)
    analysis = analyze_source(path.read_text(encoding="utf-8"), str(path), project)
    assert not analysis.errors
    found = {(f.span.line, f.code) for f in analysis.findings if f.code == code}
    assert found == expected(path, code)


def test_every_rule_has_a_fixture_with_a_finding_and_a_clean_form() -> None:
    for rule in rules.RULES:
        if rule.check is None:
            continue
        files = [p for p in FIXTURE_FILES if code_of(p) == rule.code]
        assert files, f"{rule.code} has no fixture"
        assert any(expected(p, rule.code) for p in files), f"{rule.code}: no expected finding"
