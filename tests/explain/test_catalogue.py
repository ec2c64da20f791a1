"""Every catalogue entry is complete, consistent and reachable by id."""

from __future__ import annotations

import re

import pytest

from tests.explain.cases import CASES, OLD_TF_CASES, Case, markers
from tf_insight.explain.catalogue import ENTRIES, Entry, get_entry

KEBAB_CASE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
RULE_CODES = {f"TFI{number:03d}" for number in range(1, 20)}


def test_catalogue_is_large_enough_and_ids_are_unique() -> None:
    ids = [entry.id for entry in ENTRIES]
    assert len(ids) >= 25
    assert len(set(ids)) == len(ids)


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda entry: entry.id)
def test_entry_is_complete(entry: Entry) -> None:
    assert KEBAB_CASE.match(entry.id)
    assert entry.title and entry.summary and entry.cause and entry.fix
    assert re.search(r"```(?:python|bash)\n", entry.fix), "the fix shows concrete code"
    assert entry.links and all(link.startswith("https://") for link in entry.links)
    assert entry.rule is None or entry.rule in RULE_CODES
    assert set(entry.also_rules) <= RULE_CODES
    assert get_entry(entry.id) is entry


def test_unknown_id() -> None:
    assert get_entry("no-such-entry") is None


def test_prose_is_one_line_per_paragraph() -> None:
    """Renderers wrap prose themselves; only code blocks keep their line breaks."""
    for entry in ENTRIES:
        for text in (entry.summary, entry.cause):
            assert "```" not in text
            assert all(line.strip() == line for line in text.split("\n")), entry.id


def test_every_entry_has_a_real_tf_case() -> None:
    """Each message was produced by a script on TF 2.21 (run by test_real_errors.py), or on an
    old TF (its output is in the paste corpus, checked by test_pastes.py)."""
    assert {entry.id for entry in ENTRIES} == {case.entry for case in CASES + OLD_TF_CASES}


@pytest.mark.parametrize("case", CASES + OLD_TF_CASES, ids=lambda case: case.id)
def test_case_marker_is_in_its_script(case: Case) -> None:
    marked = markers(case.path)
    assert ("raise", case.marker) in marked or ("warns", case.marker) in marked
