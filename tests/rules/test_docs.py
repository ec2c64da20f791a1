"""The documentation examples are tested: the Example triggers its rule, Use instead is clean."""

from __future__ import annotations

import pytest

from tf_insight.check import rules
from tf_insight.check.analyzer import analyze_source
from tf_insight.check.project import Project
from tf_insight.check.rules import Rule
from tf_insight.config import Config

CHECKED = [rule for rule in rules.RULES if rule.check is not None]
SECTIONS = ("What it does", "Why is this bad?", "Example", "Use instead", "References")


@pytest.mark.parametrize("rule", rules.RULES, ids=lambda r: r.code)
def test_docstring_has_every_section(rule: Rule) -> None:
    assert all(rule.sections.get(section) for section in SECTIONS), rule.sections.keys()
    assert rule.name == rule.name.lower() and " " not in rule.name


def selected(rule: Rule) -> Project:
    """A project with the rule on (opt-in rules are selected by their code)."""
    return Project(config=Config(extend_select=(rule.code,)))


@pytest.mark.parametrize("rule", CHECKED, ids=lambda r: r.code)
def test_example_triggers_the_rule(rule: Rule) -> None:
    analysis = analyze_source(rule.code_example("Example"), "example.py", selected(rule))
    assert rule.code in {f.code for f in analysis.findings}


@pytest.mark.parametrize("rule", CHECKED, ids=lambda r: r.code)
def test_use_instead_is_clean(rule: Rule) -> None:
    analysis = analyze_source(rule.code_example("Use instead"), "use_instead.py", selected(rule))
    assert rule.code not in {f.code for f in analysis.findings}
    assert not analysis.errors


def test_syntax_error_documentation_examples() -> None:
    rule = rules.BY_CODE["TFI000"]
    assert [f.code for f in analyze_source(rule.code_example("Example"), "e.py").findings] == [
        "TFI000"]
    assert not analyze_source(rule.code_example("Use instead"), "u.py").findings
