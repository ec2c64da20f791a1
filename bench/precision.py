"""How often is a static finding right on code nobody here wrote?

Downloads the pinned wheels of `bench/precision/packages.toml` (real TF/Keras libraries) from
PyPI into a cache (`$XDG_CACHE_HOME/tf-insight/precision`, outside any project, so that each
unpacked wheel is a project of its own; the bench's setup: the product never downloads),
unpacks them as pip would,
runs `tf-insight check --format json` on each in a fresh process, as a user would, and matches
every finding against the judgements in `bench/precision/judgements.csv`: TRUE (the code
misbehaves as the message says when TF runs it), FALSE (the analyzer is wrong), DEBATABLE
(right but harmless or intended), each with a one-line reason, cited as
`package==version:path:line:column:CODE` (no code is copied).

Prints the findings per package, precision (TRUE / (TRUE + FALSE)) per rule and overall, the
findings not judged yet, and the judged TRUE findings that disappeared: any of those, and the
bench fails (exit 1). Targets: ≥ 90% overall, no rule with ≥ 5 findings below 80%.

    .venv/bin/python bench/precision.py [--package NAME] [--unjudged FILE.json] [--verbose]
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import zipfile
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

HERE = Path(__file__).resolve().parent / "precision"
ROOT = Path(__file__).resolve().parents[1]
CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "tf-insight" / "precision"
VERDICTS = ("TRUE", "FALSE", "DEBATABLE")


@dataclass(frozen=True)
class Package:
    name: str
    version: str
    include: tuple[str, ...] = ()

    @property
    def pin(self) -> str:
        return f"{self.name}=={self.version}"

    @property
    def folder(self) -> Path:
        return CACHE / "src" / f"{self.name}-{self.version}"


def packages() -> list[Package]:
    data = tomllib.loads((HERE / "packages.toml").read_text())
    return [Package(p["name"], p["version"], tuple(p.get("include", ()))) for p in data["package"]]


def fetch(package: Package) -> Path:
    """The unpacked wheel (downloaded once into the cache)."""
    if package.folder.is_dir():
        return package.folder
    downloads = CACHE / "downloads"
    downloads.mkdir(parents=True, exist_ok=True)
    wanted = package.name.replace("-", "_").lower()
    wheels = [w for w in downloads.glob("*.whl")
              if w.name.lower().startswith(f"{wanted}-{package.version}-")]
    if not wheels:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary",
                        ":all:", "-q", "-d", str(downloads), package.pin], check=True)
        wheels = [w for w in downloads.glob("*.whl")
                  if w.name.lower().startswith(f"{wanted}-{package.version}-")]
    with zipfile.ZipFile(wheels[0]) as wheel:
        wheel.extractall(package.folder)
    # as pip installs it: a wheel's `<name>.data/{purelib,platlib}/` go to the top
    for data in package.folder.glob("*.data/*lib"):
        for item in data.iterdir():
            item.rename(package.folder / item.name)
    return package.folder


def check(package: Package) -> tuple[list[dict[str, Any]], int, int]:
    """The findings (paths relative to the package), files and lines checked."""
    folder = fetch(package)
    targets = sorted({str(p.relative_to(folder)) for pattern in package.include
                      for p in folder.glob(pattern)}) if package.include else ["."]
    files = [folder / t for t in targets] if package.include else sorted(folder.rglob("*.py"))
    lines = sum(len(f.read_text(encoding="utf-8", errors="replace").splitlines()) for f in files)
    tool = Path(sys.executable).with_name("tf-insight")
    result = subprocess.run([str(tool), "check", "--format", "json", *targets], cwd=folder,
                            capture_output=True, text=True)
    if result.returncode not in (0, 1):
        raise SystemExit(f"{package.pin}: tf-insight check failed:\n{result.stderr}")
    findings = json.loads(result.stdout or "[]")
    for finding in findings:
        finding["path"] = str(Path(finding["path"]))
    return findings, len(files), lines


def finding_id(package: Package, finding: dict[str, Any]) -> str:
    return f"{package.pin}:{finding['path']}:{finding['line']}:{finding['column']}:{finding['code']}"


def judgements() -> dict[str, tuple[str, str]]:
    path = HERE / "judgements.csv"
    if not path.exists():
        return {}
    with path.open(newline="") as file:
        rows = list(csv.DictReader(file))
    found: dict[str, tuple[str, str]] = {}
    for row in rows:
        if row["verdict"] not in VERDICTS:
            raise SystemExit(f"judgements.csv: {row['finding']}: verdict must be one of "
                             f"{', '.join(VERDICTS)}, got {row['verdict']!r}")
        found[row["finding"]] = (row["verdict"], row["reason"])
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--package", action="append", help="only these packages")
    parser.add_argument("--unjudged", type=Path, help="write the unjudged findings here (JSON)")
    parser.add_argument("--verbose", action="store_true", help="every finding with its verdict")
    args = parser.parse_args()
    judged = judgements()
    chosen = [p for p in packages() if not args.package or p.name in args.package]
    seen: set[str] = set()
    per_rule: dict[str, Counter[str]] = defaultdict(Counter)
    unjudged: list[dict[str, Any]] = []
    total_files = total_lines = 0
    for package in chosen:
        findings, files, lines = check(package)
        total_files += files
        total_lines += lines
        print(f"{package.pin:40} {files:5} files {lines:8,} lines {len(findings):4} findings")
        for finding in findings:
            key = finding_id(package, finding)
            seen.add(key)
            verdict, reason = judged.get(key, ("UNJUDGED", ""))
            per_rule[finding["code"]][verdict] += 1
            if verdict == "UNJUDGED":
                unjudged.append({"id": key, "message": finding["message"],
                                 "folder": str(package.folder)})
            if args.verbose:
                print(f"  {verdict:9} {key}  {finding['message'][:100]}  — {reason}")
    print(f"{'corpus':40} {total_files:5} files {total_lines:8,} lines")
    print("\nrule     TRUE FALSE DEBAT. unjudged  precision")
    totals: Counter[str] = Counter()
    for code in sorted(per_rule):
        counts = per_rule[code]
        totals.update(counts)
        print(f"{code}  {counts['TRUE']:5} {counts['FALSE']:5} {counts['DEBATABLE']:6} "
              f"{counts['UNJUDGED']:8}  {_precision(counts)}")
    print(f"all     {totals['TRUE']:5} {totals['FALSE']:5} {totals['DEBATABLE']:6} "
          f"{totals['UNJUDGED']:8}  {_precision(totals)}")
    if unjudged:
        print(f"\n{len(unjudged)} findings not judged yet:")
        for item in unjudged[:50]:
            print(f"  {item['id']}  {item['message'][:110]}")
        if args.unjudged:
            args.unjudged.write_text(json.dumps(unjudged, indent=2))
    in_scope = {key for key in judged
                if any(key.startswith(p.pin + ":") for p in chosen)}
    lost = sorted(k for k in in_scope - seen if judged[k][0] == "TRUE")
    if lost:
        print(f"\nFAIL: {len(lost)} judged TRUE findings disappeared:")
        for key in lost:
            print(f"  {key}  ({judged[key][1]})")
        return 1
    return 0


def _precision(counts: Counter[str]) -> str:
    decided = counts["TRUE"] + counts["FALSE"]
    return f"{100 * counts['TRUE'] / decided:5.1f}%" if decided else "    -"


if __name__ == "__main__":
    sys.exit(main())
