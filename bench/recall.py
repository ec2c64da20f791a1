"""Does `tf-insight check` find the hazards real users hit?

`tests/rules/real_users/` holds minimal cases we wrote after public threads where users asked
why their TF code misbehaved, each confirmed on TF 2.21 and marked with what a checker must
report (`cases.csv`: file, split, source, expected code, line). Each case is checked as a
project of its own (a copy in a temporary folder, as a user's snippet would be), in a fresh
process per split, and a hazard counts as found when a finding of the expected code is on the
expected line, or that names the expected line among its related locations (a finding at a
`@tf.function` decorator whose related location is the call the case marks points at both). `NEW-*` kinds name hazards no rule covered when the set was made; `COVERED`
maps those a rule now covers to its code.

Prints recall per split (dev, held-out: the split is by the thread's source, drawn before the
cases were run through the checker), the misses, and the findings on lines no case expects
(each case is small: those are worth a look).

Fifteen rounds of cases: round 1 is `dev` and `heldout`; rounds 2 to 15 (`round2_dev`,
`round2_heldout`, ..., `round15_heldout`) are fresh sets from other threads, built and
split the same way, whose held-out halves are measured once, at the end. `all` is round 1 (dev,
then heldout), as before: the later splits run only when named, so that a habitual `--split all`
does not open a fresh held-out half.

    .venv/bin/python bench/recall.py [--split dev|heldout|round2_dev|...|round15_heldout|all] [--verbose]
"""

from __future__ import annotations

import argparse
import csv
import json
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

CASES = Path(__file__).resolve().parents[1] / "tests" / "rules" / "real_users"
SPLITS = ("dev", "heldout", "round2_dev", "round2_heldout", "round3_dev", "round3_heldout",
          "round4_dev", "round4_heldout", "round5_dev", "round5_heldout",
          "round6_dev", "round6_heldout", "round7_dev", "round7_heldout",
          "round8_dev", "round8_heldout", "round9_dev", "round9_heldout",
          "round10_dev", "round10_heldout", "round11_dev", "round11_heldout",
          "round12_dev", "round12_heldout", "round13_dev", "round13_heldout",
          "round14_dev", "round14_heldout", "round15_dev", "round15_heldout")
ALL = ("dev", "heldout")  # what `--split all` runs: round 1 only
# NEW-* hazard kinds a rule covers now
COVERED = {
    "NEW-python-list-in-tensor-loop": "TFI020",
    "NEW-shape-retrace": "TFI021",
    "NEW-layer-created-in-call": "TFI008",
    "NEW-predict-in-loop": "TFI023",
    "NEW-identity-comparison-on-tensor": "TFI024",
    "NEW-len-of-symbolic-tensor": "TFI025",
    "NEW-static-shape-none": "TFI026",
    "NEW-static-shape-none-branch": "TFI026",
    "NEW-keras-tensor-as-python-value": "TFI015",
    "NEW-model-rebuilt-in-loop": "TFI027",
    "NEW-trainable-changed-during-fit": "TFI028",
    "NEW-py-function-unknown-shape": "TFI029",
    "NEW-tensor-as-training-flag": "TFI030",
    "NEW-optimizer-created-in-function": "TFI008",
    "NEW-keras-tensor-in-loss": "TFI015",
    "NEW-traced-tensor-used-after-trace": "TFI031",
    "NEW-variables-created-on-retrace": "TFI032",
    "NEW-custom-gradient-keyword-call": "TFI001",
    "NEW-python-method-on-symbolic-tensor": "TFI012",
    # scikit-learn and SciPy functions given a tensor in graph code (other libraries: not yet)
    "NEW-python-library-on-symbolic-tensor": "TFI012",
    "NEW-decode-image-unknown-rank": "TFI029",
    "NEW-tensor-as-static-op-argument": "TFI034",
    "NEW-tensor-as-dict-key": "TFI035",
    "NEW-py-function-under-xla": "TFI036",
    "NEW-train-step-ignored-without-eager": "TFI037",
    "NEW-seed-set-after-trace": "TFI038",
    "NEW-tf-function-method-on-temporary": "TFI039",
    "NEW-predict-in-graph": "TFI040",
    "NEW-bound-method-argument-retrace": "TFI004",
    "NEW-py-function-unknown-shape-in-layer": "TFI029",
    # a loss that sums or averages over the batch axis: what TFI010 documents (mapped from the
    # rule's documentation when round 9 was made, before its held-out half ran)
    "NEW-batch-summed-loss": "TFI010",
}


@dataclass(frozen=True)
class Expected:
    file: str
    split: str
    source: str
    code: str
    line: str  # "12", or "cell 3:4" in a notebook

    @property
    def rule(self) -> str:
        return COVERED.get(self.code, self.code)


def expected(split: str) -> list[Expected]:
    with (CASES / "cases.csv").open(newline="") as handle:
        rows = [Expected(r["file"], r["split"], r["source"], r["expected"], r["line"])
                for r in csv.DictReader(handle)]
    return [row for row in rows if split in ("all", row.split)]


def findings(files: list[str]) -> tuple[dict[str, set[tuple[str, str]]],
                                        dict[str, set[tuple[str, str]]]]:
    """(code, line) of every finding, per case file, by the line it is on and by every line it
    points at (its related locations too); each case copied into a folder of its own (a
    project of one file), all checked in one process."""
    found: dict[str, set[tuple[str, str]]] = defaultdict(set)
    pointed: dict[str, set[tuple[str, str]]] = defaultdict(set)
    with tempfile.TemporaryDirectory() as folder:
        copies: dict[str, str] = {}
        for number, name in enumerate(sorted(set(files))):
            target = Path(folder) / f"case{number}" / Path(name).name
            target.parent.mkdir()
            shutil.copy(CASES / name, target)
            copies[str(target)] = name
        result = subprocess.run(
            [sys.executable, "-m", "tf_insight.cli", "check", "--output-format", "json",
             "--exit-zero", *copies],
            capture_output=True, text=True, check=True)
    for finding in json.loads(result.stdout):
        places = [finding, *(r for r in finding.get("related", []) if r["path"] == finding["path"])]
        for place in places:
            line = (f"cell {place['cell']}:{place['line']}" if place.get("cell")
                    else str(place["line"]))
            pointed[copies[finding["path"]]].add((finding["code"], line))
            if place is finding:
                found[copies[finding["path"]]].add((finding["code"], line))
    return found, pointed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", choices=(*SPLITS, "all"), default="dev",
                        help="all = round 1 (dev, heldout); round-2 splits run only when named")
    parser.add_argument("--verbose", action="store_true", help="list every case")
    args = parser.parse_args()
    splits = ALL if args.split == "all" else (args.split,)
    for split in splits:
        cases = expected(split)
        found, pointed = findings([case.file for case in cases])
        hits = [case for case in cases if (case.rule, case.line) in pointed[case.file]]
        print(f"{split}: {len(hits)} of {len(cases)} hazards found "
              f"({100 * len(hits) / max(len(cases), 1):.0f}%)")
        for case in cases:
            if case in hits and not args.verbose:
                continue
            mark = "found" if case in hits else "MISSED"
            print(f"  {mark:6} {case.file}:{case.line} {case.code} ({case.source})")
        wanted = {(case.file, case.rule) for case in cases}
        others = sorted((file, code, line) for file, codes in found.items()
                        for code, line in codes if (file, code) not in wanted)
        if others:
            print(f"  other findings in the cases ({len(others)}):")
            for file, code, line in others:
                print(f"    {file}:{line} {code}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
