"""How often is `tf-insight explain` fully right on what real users pasted?

The corpus is error and warning output that users pasted into public issue threads nobody on
the team had read (`bench/real_pastes/README.md`): `bench/real_pastes/manifest.csv` holds each
paste's source and expected answer, split by source repository into a development half and a
held-out half before anyone looked. The texts are third-party and stay outside git, in
`$XDG_CACHE_HOME/tf-insight/real-pastes/<id>.txt` (`~/.cache/...`); the README says how a
person refills that folder, and the bench checks each text against the README's character
count and SHA-256 prefix.

Each paste of a split is explained as the CLI would (no workspace) and scored:
- fully right: the entry is the expected one (for a `none` row: no entry, or one marked low
  confidence), the rule is the expected one where the row gives one, and the user frame
  (`basename:line`; notebook cells as shown, `Cell In[1]:1`) is the expected one where the row
  gives one;
- confidently wrong: an entry other than the expected one, or any entry on a `none` row, that
  is not marked low confidence;
- crash: `explain` or a renderer raised.
Prints, per split, fully right, right entry, recognised (graph-mode rows given any entry),
right frame, confidently wrong and crashes, then the dev misses with their reasons. The
held-out half is run once, at the end of a piece of work, and never tuned on: its misses are
not printed.

    .venv/bin/python bench/real_pastes.py [--split dev|heldout|all]
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import os
import re
import sys
import traceback
from dataclasses import dataclass, field
from pathlib import Path

from tf_insight.explain import Explanation, explain
from tf_insight.explain.render import render_markdown, render_text

HERE = Path(__file__).resolve().parent / "real_pastes"
MANIFEST = HERE / "manifest.csv"
README = HERE / "README.md"
# The README's refill table: | `id` | split | source | chars | `sha256[:16]` |
_CHECKSUM_ROW = re.compile(
    r"^\| `(?P<id>[^`]+)` \| \w+ \| .* \| (?P<chars>\d+) \| `(?P<sha>[0-9a-f]{16})` \|$", re.M)
NONE = "none"


def cache_folder() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "tf-insight" / "real-pastes"


@dataclass(frozen=True)
class Row:
    """One manifest row: a paste's id, split and expected answer."""

    id: str
    split: str
    entry: str  # a catalogue entry id, or "none"
    rule: str  # "" when not given
    frame: str  # "basename:line", or "none"


def rows(split: str) -> list[Row]:
    with MANIFEST.open(encoding="utf-8", newline="") as handle:
        return [Row(record["id"], record["split"], record["expected_entry"],
                    record["expected_rule"], record["expected_frame"])
                for record in csv.DictReader(handle)
                if split == "all" or record["split"] == split]


def checksums() -> dict[str, tuple[int, str]]:
    """id -> (characters, first 16 hex digits of the SHA-256), from the README's table."""
    text = README.read_text(encoding="utf-8")
    return {found["id"]: (int(found["chars"]), found["sha"])
            for found in _CHECKSUM_ROW.finditer(text)}


def frame_label(explanation: Explanation) -> str:
    """The user frame as the manifest writes it: `basename:line`, `Cell In[1]:1`."""
    frame = explanation.user_frame
    if frame is None:
        return NONE
    name = re.split(r"[\\/]", frame.path)[-1]
    if re.fullmatch(r"In ?\[\d*\]", name):
        name = f"Cell {name}"
    return f"{name}:{frame.line}"


@dataclass
class Outcome:
    row: Row
    explanation: Explanation | None = None
    crash: str = ""

    @property
    def confident(self) -> bool:
        explanation = self.explanation
        return explanation is not None and explanation.recognised \
            and explanation.confidence != "low"

    @property
    def right_entry(self) -> bool:
        if self.explanation is None:
            return False
        if self.row.entry == NONE:
            return not self.confident
        return self.explanation.id == self.row.entry

    @property
    def right_rule(self) -> bool:
        return not self.row.rule or (self.explanation is not None
                                     and self.explanation.rule == self.row.rule)

    @property
    def right_frame(self) -> bool:
        return self.row.frame == NONE or (self.explanation is not None
                                          and frame_label(self.explanation) == self.row.frame)

    @property
    def fully_right(self) -> bool:
        return self.right_entry and self.right_rule and self.right_frame

    @property
    def confidently_wrong(self) -> bool:
        return self.confident and self.explanation is not None \
            and self.explanation.id != self.row.entry

    def reasons(self) -> str:
        if self.crash:
            return f"crash: {self.crash}"
        explanation = self.explanation
        assert explanation is not None
        got = f"{explanation.id} ({explanation.confidence})" if explanation.id else "unrecognised"
        reasons = []
        if not self.right_entry:
            reasons.append(f"entry {got}, expected {self.row.entry}")
        if not self.right_rule:
            reasons.append(f"rule {explanation.rule}, expected {self.row.rule}")
        if not self.right_frame:
            reasons.append(f"frame {frame_label(explanation)}, expected {self.row.frame}")
        return "; ".join(reasons)


@dataclass
class Tally:
    outcomes: list[Outcome] = field(default_factory=list)

    def line(self, label: str) -> str:
        total = len(self.outcomes)
        graph = [outcome for outcome in self.outcomes if outcome.row.entry != NONE]
        framed = [outcome for outcome in self.outcomes if outcome.row.frame != NONE]

        def share(part: int, whole: int) -> str:
            return f"{part}/{whole} ({100 * part / whole:.0f}%)" if whole else "-"

        return (
            f"{label:<8} fully right {share(sum(o.fully_right for o in self.outcomes), total)}"
            f" | right entry {share(sum(o.right_entry for o in self.outcomes), total)}"
            f" | recognised {share(sum(bool(o.explanation and o.explanation.id) for o in graph), len(graph))}"
            f" | right frame {share(sum(o.right_frame for o in framed), len(framed))}"
            f" | confidently wrong {sum(o.confidently_wrong for o in self.outcomes)}"
            f" | crashes {sum(bool(o.crash) for o in self.outcomes)}"
        )


def run(row: Row, text: str) -> Outcome:
    try:
        explanation = explain(text)
        render_text(explanation)
        render_markdown(explanation)
        explanation.to_dict()
    except Exception as error:  # a crash is a result here, not a failure of the bench
        where = traceback.extract_tb(error.__traceback__)[-1]
        return Outcome(row, crash=f"{type(error).__name__}: {error} "
                                  f"({Path(where.filename).name}:{where.lineno})")
    return Outcome(row, explanation)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", choices=("dev", "heldout", "all"), default="dev")
    args = parser.parse_args()
    folder = cache_folder()
    expected = checksums()
    selected = rows(args.split)
    missing, changed = [], []
    by_split: dict[str, Tally] = {}
    for row in selected:
        file = folder / f"{row.id}.txt"
        if not file.is_file():
            missing.append(row.id)
            continue
        text = file.read_bytes().decode("utf-8")
        chars, sha = expected.get(row.id, (len(text), ""))
        if len(text) != chars or (sha and hashlib.sha256(text.encode()).hexdigest()[:16] != sha):
            changed.append(row.id)
        by_split.setdefault(row.split, Tally()).outcomes.append(run(row, text))
    if missing:
        print(f"{len(missing)} of {len(selected)} pastes are not in {folder}: refill them as "
              f"{README.relative_to(HERE.parent.parent)} says (\"Refilling the cache\"). Missing: "
              + ", ".join(missing[:10]) + (" ..." if len(missing) > 10 else ""))
    if changed:
        print(f"{len(changed)} cached pastes differ from the README's checksums (scored anyway): "
              + ", ".join(changed))
    for split, tally in sorted(by_split.items()):
        print(tally.line(split))
    dev = by_split.get("dev")
    if dev is not None:
        misses = [outcome for outcome in dev.outcomes if not outcome.fully_right]
        print(f"dev misses ({len(misses)}):")
        for outcome in misses:
            print(f"  {outcome.row.id}: {outcome.reasons()}")
    return 1 if missing and not by_split else 0


if __name__ == "__main__":
    sys.exit(main())
