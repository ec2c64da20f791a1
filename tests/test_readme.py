"""The README stays current: its rule table is the generated one, its commands exist."""

from __future__ import annotations

import re
from pathlib import Path

from tf_insight.check.cli import rules_table

ROOT = Path(__file__).parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_rule_table_matches_the_rule_docstrings() -> None:
    match = re.search(r"<!-- rules:start[^>]*-->\n(.*?)\n<!-- rules:end -->", README, re.S)
    assert match is not None
    assert match.group(1) == rules_table()


def test_the_two_commands_exist() -> None:
    for command in ("scripts/demo", "scripts/test"):
        assert f"{command} " in README
        assert (ROOT / command).stat().st_mode & 0o111
    assert "scripts/test" in (ROOT / ".ci" / "run").read_text()


def test_rule_documents_are_current() -> None:
    from tf_insight.check.cli import rules_document

    assert (ROOT / "docs" / "rules.md").read_text(encoding="utf-8") == rules_document() + "\n"
