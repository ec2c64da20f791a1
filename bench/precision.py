"""How often is a static finding right on code nobody here wrote?

Two corpora of pinned PyPI releases (`bench/precision/packages.toml`): 12 TF/Keras libraries
(careful code) and application code (training scripts, examples, research implementations,
tutorials, notebooks, model zoos), each source tagged with a round and `dev` or `heldout`. Each
round's application sources were split before the checker ever ran on them (sorted names
shuffled with the round's recorded seed, first half dev; the bench checks that the recorded
split is that one); a held-out half is opened once, at the end, to measure rule work done on the
dev halves without fitting it. Round 1 (the libraries and 32 application sources) is development
data now, both halves; round 2 (37 other application sources) was the next measurement, its
held-out half opened once; rounds 3, 4 and 5 (39, 23 and 42 other sources) the next ones, both
halves opened; rounds 6, 7, 8 and 9 (40, 41, 44 and 48 other sources) too, each held-out half
opened once; rounds 10 and 11 (48 other sources each) too; round 12 (78 other sources, drawn
from PyPI's index by name) too; round 13 (81 other sources, drawn the same way) too; round 14 (82
other sources, drawn the same way) too; round 15 (94 other sources, drawn from the names left,
reshuffled) too; round 16 (206 other sources, drawn from deep-learning names whose releases
require TensorFlow or Keras) too. Round 17 (83 other sources, drawn from names with other
machine-learning words) too. Round 18 (61 other sources, the next names of round 17's pool)
too; rounds 19, 20 and 21 (76, 67 and 56, the rest of that pool) too; rounds 22 to 52
(39, 53, 61, 53, 55, 56, 53, 65, 68, 51, 63, 48, 43, 52, 61, 54, 58, 59, 59, 49, 43, 49, 39,
52, 56, 55, 38, 55, 39, 61 and 33 other sources, from PyPI names with none of those words) too. The next fresh measurement is a new round, sealed;
before it is sealed, `--round N --split all --copies` lists its sources that share modules
with any other source of the corpus (one source must not sit in two halves). A round
marked `sealed` in packages.toml has never been checked: `--round all` leaves it out, and only
`--round N` checks it (its dev half first, its held-out half once, at the end).

The bench fetches each source into a cache (`$XDG_CACHE_HOME/tf-insight/precision`, outside any
project, so that each unpacked source is a project of its own; the bench's setup: the product
never downloads): a wheel with `pip download --only-binary` and unpacked as pip would, an sdist
as a plain file from the package index (its pinned sha256 checked) and unpacked without its top
folder; nothing in a source is built or run. It runs `tf-insight check --output-format json` on
each in a fresh process, as a user would, and matches every finding against the judgements in
`bench/precision/judgements.csv`: TRUE (the code misbehaves as the message says when TF runs
it), FALSE (the analyzer is wrong), DEBATABLE (right but harmless or intended: noise for the
user), each with a one-line reason, cited as `package==version:path:line:column:CODE`
(`path:cell N:line:column:CODE` in a notebook; no code is copied).

Prints the findings per source, then per round and split (e.g. "round 2 heldout"), and all
together when there are several, per rule: findings, TRUE, FALSE, DEBATABLE,
unjudged, the useful rate (TRUE / all findings shown by default) and precision
(TRUE / (TRUE + FALSE)); files Python cannot parse (TFI000) and cannot read (TFI900) are
counted apart, never judged. Lists the findings not judged yet, and the judged TRUE findings
that disappeared: any of those, and the bench fails (exit 1). Targets (library corpus): ≥ 90%
precision overall, no rule with ≥ 5 findings below 80%.

`--fetch-only` downloads and unpacks the chosen sources into the cache, prints their files and
lines, and exits: it never runs the checker (its `--split` defaults to all).

    .venv/bin/python bench/precision.py [--round 1|2|...|23|all]
                                        [--split dev|heldout|all] [--corpus library|application]
                                        [--package NAME] [--unjudged FILE.json] [--verbose]
                                        [--fetch-only]
"""

from __future__ import annotations

import argparse
import csv
import fnmatch
import hashlib
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from collections import Counter, defaultdict
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tf_insight.check.parallel import default_jobs
from tf_insight.config import DEFAULT_EXCLUDE

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

HERE = Path(__file__).resolve().parent / "precision"
ROOT = Path(__file__).resolve().parents[1]
FETCHES = 8  # downloads at once
RETRIES = 6  # tries of each download, 1 s to 16 s apart
CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "tf-insight" / "precision"
VERDICTS = ("TRUE", "FALSE", "DEBATABLE")
SPLITS = ("dev", "heldout")
ROUNDS = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52)
CORPORA = ("library", "application")
# not a judgement on TF code: a file that Python cannot parse (Python 2, templates) or read
APART = {"TFI000": "syntax errors", "TFI900": "unreadable files"}
# folders `tf-insight check .` skips, so not counted either
SKIPPED = set(DEFAULT_EXCLUDE)


@dataclass(frozen=True)
class Package:
    name: str
    version: str
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    kind: str = "wheel"
    file: str | None = None
    sha256: str | None = None
    corpus: str = "library"
    split: str = "dev"
    round: int = 1

    @property
    def pin(self) -> str:
        return f"{self.name}=={self.version}"

    @property
    def group(self) -> str:
        """Its round and split, as the summary titles them."""
        return f"round {self.round} {self.split}"

    @property
    def folder(self) -> Path:
        suffix = "" if self.kind == "wheel" else f"-{self.kind}"
        return CACHE / "src" / f"{self.name}-{self.version}{suffix}"


def packages(splits: Iterable[str] = SPLITS, corpora: Iterable[str] = ("library",),
             rounds: Iterable[int] = ROUNDS) -> list[Package]:
    """The sources of these splits, corpora and rounds (by default the 12 libraries, as before)."""
    data = _corpus()
    found = []
    for p in data["package"]:
        package = Package(p["name"], p["version"], tuple(p.get("include", ())),
                          tuple(p.get("exclude", ())), p.get("kind", "wheel"), p.get("file"),
                          p.get("sha256"), p.get("corpus", "library"), p.get("split", "dev"),
                          p.get("round", 1))
        if package.kind not in ("wheel", "sdist") or package.corpus not in CORPORA \
                or package.split not in SPLITS or package.round not in ROUNDS \
                or (package.kind == "sdist" and not (package.file and package.sha256)):
            raise SystemExit(f"packages.toml: {package.pin}: bad kind, corpus, split, round, or "
                             "an sdist without file and sha256")
        found.append(package)
    for number in ROUNDS:
        seed = _round_table(data, number)["seed"]
        application = [p for p in found if p.corpus == "application" and p.round == number]
        drawn = drawn_split([p.name for p in application], seed)
        wrong = [p.pin for p in application if drawn[p.name] != p.split]
        if wrong:
            raise SystemExit(f"packages.toml: round {number}'s split is not the one drawn with "
                             f"seed {seed}: {', '.join(wrong)}")
    wanted = set(splits), set(corpora), set(rounds)
    return [p for p in found
            if p.split in wanted[0] and p.corpus in wanted[1] and p.round in wanted[2]]


def drawn_split(names: Iterable[str], seed: int) -> dict[str, str]:
    """A round's split: its application sources' names, sorted, shuffled with
    random.Random(seed); the first half (len // 2) dev, the rest heldout."""
    order = sorted(names)
    random.Random(seed).shuffle(order)
    return {name: "dev" if i < len(order) // 2 else "heldout" for i, name in enumerate(order)}


def sealed_rounds() -> set[int]:
    """The rounds never checked yet (`sealed = true`): out of `--round all`."""
    data = _corpus()
    return {number for number in ROUNDS if _round_table(data, number).get("sealed")}


def _corpus() -> dict[str, Any]:
    data: dict[str, Any] = tomllib.loads((HERE / "packages.toml").read_text())
    return data


def _round_table(data: dict[str, Any], number: int) -> dict[str, Any]:
    """Round 1's seed is `[split] seed`; round N's is `[split.roundN] seed`."""
    table: dict[str, Any] = data["split"] if number == 1 else data["split"][f"round{number}"]
    return table


def fetch(package: Package) -> Path:
    """The unpacked source (downloaded once into the cache)."""
    if package.folder.is_dir():
        return package.folder
    downloads = CACHE / "downloads"
    downloads.mkdir(parents=True, exist_ok=True)
    if package.kind == "sdist":
        _unpack_sdist(_download_file(package, downloads), package.folder)
        return package.folder
    wanted = package.name.replace("-", "_").lower()
    wheels = [w for w in downloads.glob("*.whl")
              if w.name.lower().startswith(f"{wanted}-{package.version}-")]
    if package.file:  # the pinned wheel itself (pip refuses a py2-only tag on this Python)
        wheels = [_download_file(package, downloads)]
    elif not wheels:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary",
                        ":all:", "-q", "-d", str(downloads), package.pin], check=True)
        wheels = [w for w in downloads.glob("*.whl")
                  if w.name.lower().startswith(f"{wanted}-{package.version}-")]
    if package.sha256 and _sha256(wheels[0]) != package.sha256:
        raise SystemExit(f"{package.pin}: {wheels[0].name} is not the pinned file (sha256)")
    with zipfile.ZipFile(wheels[0]) as wheel:
        wheel.extractall(package.folder)
    # as pip installs it: a wheel's `<name>.data/{purelib,platlib}/` go to the top
    for data in package.folder.glob("*.data/*lib"):
        for item in data.iterdir():
            item.rename(package.folder / item.name)
    return package.folder


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _download_file(package: Package, downloads: Path) -> Path:
    """The pinned archive, fetched as a file from the package index's simple API (PEP 691).
    `pip download` would prepare an sdist's metadata, that is run its build backend: not here."""
    assert package.file and package.sha256
    path = downloads / package.file
    if path.exists() and _sha256(path) == package.sha256:
        return path
    index = os.environ.get("PIP_INDEX_URL", "https://pypi.org/simple").rstrip("/")
    project = re.sub(r"[-_.]+", "-", package.name).lower()
    request = urllib.request.Request(f"{index}/{project}/",
                                     headers={"Accept": "application/vnd.pypi.simple.v1+json"})
    listing = json.loads(_read_url(request, timeout=120))
    urls = [f["url"] for f in listing["files"] if f["filename"] == package.file]
    if not urls:
        raise SystemExit(f"{package.pin}: {package.file} is not on {index}")
    url = urllib.parse.urljoin(f"{index}/{project}/", urls[0])
    data = _read_url(urllib.request.Request(url), timeout=600)
    if hashlib.sha256(data).hexdigest() != package.sha256:
        raise SystemExit(f"{package.pin}: {package.file} does not have the pinned sha256")
    path.write_bytes(data)
    return path


def _read_url(request: urllib.request.Request, timeout: int) -> bytes:
    """The answer's body, asked again after a network failure (a name lookup that timed out
    with many downloads at once): a cache filled from scratch fetches thousands of files."""
    for attempt in range(RETRIES - 1):
        try:
            return _body(request, timeout)
        except urllib.error.HTTPError as error:
            if error.code < 500:
                raise  # the index's answer, not the network's: asking again changes nothing
        except urllib.error.URLError:
            pass
        time.sleep(2 ** attempt)
    return _body(request, timeout)  # the last try: its failure is the bench's


def _body(request: urllib.request.Request, timeout: int) -> bytes:
    with urllib.request.urlopen(request, timeout=timeout) as answer:
        return bytes(answer.read())


def _unpack_sdist(archive: Path, folder: Path) -> None:
    """Unpack regular files and folders only, without the archive's one top folder."""
    with tempfile.TemporaryDirectory(dir=CACHE) as scratch:
        target = Path(scratch)
        if archive.name.endswith(".zip"):
            with zipfile.ZipFile(archive) as zipped:
                for info in zipped.infolist():
                    parts = Path(info.filename).parts
                    if info.is_dir() or info.filename.startswith("/") or ".." in parts:
                        continue
                    dest = target.joinpath(*parts)
                    dest.parent.mkdir(parents=True, exist_ok=True)
                    dest.write_bytes(zipped.read(info))
        else:
            with tarfile.open(archive) as tar:
                members = [m for m in tar.getmembers() if m.isfile() or m.isdir()]
                tar.extractall(target, members=members, filter="data")
        tops = list(target.iterdir())
        top = tops[0] if len(tops) == 1 and tops[0].is_dir() else target
        folder.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(top), str(folder))


def targets(package: Package) -> tuple[list[str], list[Path]]:
    """What to pass to `tf-insight check` (relative to the source) and the files it checks."""
    folder = fetch(package)
    if package.include:
        files = sorted({p for pattern in package.include for p in folder.glob(pattern)
                        if p.is_file()})
    else:
        files = sorted(p for p in folder.rglob("*") if p.suffix in (".py", ".ipynb")
                       and p.is_file()
                       and not SKIPPED & set(p.relative_to(folder).parts[:-1]))
    if package.exclude:
        files = [p for p in files if not any(fnmatch.fnmatch(str(p.relative_to(folder)), x)
                                             for x in package.exclude)]
    if package.include or package.exclude:
        return [str(p.relative_to(folder)) for p in files], files
    return ["."], files


def lines_of(path: Path) -> int:
    """A module's lines; a notebook's code-cell lines."""
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix != ".ipynb":
        return len(text.splitlines())
    try:
        cells = json.loads(text).get("cells", [])
    except (ValueError, AttributeError):
        return 0
    count = 0
    for cell in cells:
        if cell.get("cell_type") == "code":
            source = cell.get("source", "")
            count += len("".join(source).splitlines() if isinstance(source, list)
                         else source.splitlines())
    return count


def check(package: Package) -> tuple[list[dict[str, Any]], int, int]:
    """The findings (paths relative to the source), files and lines checked."""
    folder = fetch(package)
    args, files = targets(package)
    lines = sum(lines_of(f) for f in files)
    tool = Path(sys.executable).with_name("tf-insight")
    # one job each: `main` checks as many packages at once as there are cores
    result = subprocess.run([str(tool), "check", "--output-format", "json", "--jobs", "1",
                             *args], cwd=folder, capture_output=True, text=True)
    if result.returncode not in (0, 1):
        raise SystemExit(f"{package.pin}: tf-insight check failed:\n{result.stderr}")
    findings = json.loads(result.stdout or "[]")
    for finding in findings:
        finding["path"] = str(Path(finding["path"]))
    return findings, len(files), lines


def finding_id(package: Package, finding: dict[str, Any]) -> str:
    cell = f"cell {finding['cell']}:" if finding.get("cell") is not None else ""
    return (f"{package.pin}:{finding['path']}:{cell}{finding['line']}:{finding['column']}:"
            f"{finding['code']}")


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
        if row["finding"] in found:
            raise SystemExit(f"judgements.csv: {row['finding']} is judged twice")
        found[row["finding"]] = (row["verdict"], row["reason"])
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--round", choices=(*map(str, ROUNDS), "all"), default="all",
                        help="the sources of this round (default all, less the sealed rounds)")
    parser.add_argument("--split", choices=(*SPLITS, "all"),
                        help="the sources of this split (default dev, all with --fetch-only; "
                             "heldout: once, at the end)")
    parser.add_argument("--corpus", choices=CORPORA, action="append",
                        help="only this corpus (default both)")
    parser.add_argument("--package", action="append", help="only these packages")
    parser.add_argument("--unjudged", type=Path, help="write the unjudged findings here (JSON)")
    parser.add_argument("--verbose", action="store_true", help="every finding with its verdict")
    parser.add_argument("--fetch-only", action="store_true",
                        help="download and unpack the sources into the cache, print their sizes "
                             "and exit (the checker does not run)")
    parser.add_argument("--copies", action="store_true",
                        help="before a new round is sealed: the chosen sources that share "
                             "modules with other sources of the corpus (the checker does not "
                             "run)")
    args = parser.parse_args()
    split = args.split or ("all" if args.fetch_only else "dev")
    splits = SPLITS if split == "all" else (split,)
    rounds: tuple[int, ...] = ROUNDS if args.round == "all" else (int(args.round),)
    if args.round == "all" and not args.fetch_only:
        sealed = sealed_rounds()
        rounds = tuple(r for r in rounds if r not in sealed)
        for number in sorted(sealed):
            print(f"round {number} is sealed (never checked): left out; --round {number} checks it")
    chosen = [p for p in packages(splits, args.corpus or CORPORA, rounds)
              if not args.package or p.name in args.package]
    if args.fetch_only:
        return fetch_only(chosen)
    if args.copies:
        return copies(chosen, packages(SPLITS, CORPORA, ROUNDS))
    judged = judgements()
    seen: set[str] = set()
    per_rule: dict[str, dict[str, Counter[str]]] = defaultdict(lambda: defaultdict(Counter))
    per_corpus: dict[str, dict[str, Counter[str]]] = defaultdict(lambda: defaultdict(Counter))
    apart: dict[str, Counter[str]] = defaultdict(Counter)
    unjudged: list[dict[str, Any]] = []
    size: dict[str, Counter[str]] = defaultdict(Counter)
    pool = ThreadPoolExecutor(max_workers=default_jobs())  # in order, as each is done
    for package, (findings, files, lines) in zip(chosen, pool.map(check, chosen), strict=True):
        size[package.group].update(files=files, lines=lines, sources=1)
        shown = [f for f in findings if f["code"] not in APART]
        print(f"{package.group:15} {package.corpus[:3]} {package.pin:40} {files:5} files "
              f"{lines:8,} lines {len(shown):4} findings"
              + "".join(f", {n} {code}" for code, n in
                        sorted(Counter(f["code"] for f in findings if f["code"] in APART)
                               .items())), flush=True)
        for finding in findings:
            key = finding_id(package, finding)
            if finding["code"] in APART:
                apart[package.group][finding["code"]] += 1
                continue
            seen.add(key)
            verdict, reason = judged.get(key, ("UNJUDGED", ""))
            per_rule[package.group][finding["code"]][verdict] += 1
            per_corpus[package.group][package.corpus][verdict] += 1
            if verdict == "UNJUDGED":
                unjudged.append({"id": key, "message": finding["message"],
                                 "folder": str(package.folder)})
            if args.verbose:
                print(f"  {verdict:9} {key}  {finding['message'][:100]}  — {reason}")
    pool.shutdown()
    groups = [g for g in (f"round {r} {s}" for r in ROUNDS for s in SPLITS) if g in size]
    tables = [(group, [group]) for group in groups]
    if len(tables) > 1:
        tables.append(("all", groups))
    for title, which in tables:
        files = sum(size[g]["files"] for g in which)
        lines = sum(size[g]["lines"] for g in which)
        sources = sum(size[g]["sources"] for g in which)
        print(f"\n{title}: {sources} sources, {files:,} files, {lines:,} lines"
              + "".join(f"; {sum(apart[g][code] for g in which)} {name} ({code}, not judged)"
                        for code, name in APART.items()))
        print("rule     TRUE FALSE DEBAT. unjudged findings  useful precision")
        merged: dict[str, Counter[str]] = defaultdict(Counter)
        for group in which:
            for code, counts in per_rule[group].items():
                merged[code].update(counts)
        totals: Counter[str] = Counter()
        for code in sorted(merged):
            totals.update(merged[code])
            print(_row(code, merged[code]))
        print(_row("all", totals))
        for corpus in CORPORA:
            mine: Counter[str] = Counter()
            for group in which:
                mine.update(per_corpus[group][corpus])
            if mine:
                found = sum(mine.values())
                print(f"  {corpus}: {found} findings, {mine['TRUE']} TRUE, {mine['FALSE']} "
                      f"FALSE, {mine['DEBATABLE']} DEBATABLE, {mine['UNJUDGED']} unjudged; "
                      f"useful {_rate(mine['TRUE'], found).strip()}, precision "
                      f"{_rate(mine['TRUE'], mine['TRUE'] + mine['FALSE']).strip()}")
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


# a module counts toward a copy from this many lines of code (an `__init__.py` of imports, a
# licence header alone, are shared by packages that copy nothing)
COPIED_MODULE_LINES = 20


def copies(chosen: list[Package], corpus: list[Package]) -> int:
    """Print each chosen source that has modules identical (blank lines and indentation
    aside) to another source's, with how many: a fork, a vendored package or a renamed upload
    is one source, and must not sit in two halves (nestwork carries its author's tokun, round
    41 beside round 40). Returns 1 if any was found."""
    homes: dict[str, set[str]] = defaultdict(set)  # a module's digest -> the sources having it
    digests: dict[str, set[str]] = {}
    for package in corpus:
        digests[package.pin] = mine = set()
        for path in targets(package)[1]:
            if path.suffix != ".py":
                continue
            lines = [line.strip() for line in
                     path.read_text(encoding="utf-8", errors="replace").splitlines()]
            code = [line for line in lines if line and not line.startswith("#")]
            if len(code) >= COPIED_MODULE_LINES:
                mine.add(hashlib.sha256("\n".join(code).encode()).hexdigest())
        for digest in mine:
            homes[digest].add(package.pin)
    found = 0
    for package in chosen:
        shared: Counter[str] = Counter(other for digest in digests[package.pin]
                                       for other in homes[digest] if other != package.pin)
        for other, count in shared.most_common():
            found += 1
            print(f"{package.pin}: {count} of its {len(digests[package.pin])} modules are "
                  f"also in {other}")
    print(f"{found} pair(s) of sources sharing modules among {len(chosen)} chosen")
    return 1 if found else 0


def fetch_only(chosen: list[Package]) -> int:
    """Fetch and unpack every chosen source, several at a time (the time goes into waiting for
    the index), and print what the bench would check in each."""
    size: dict[str, Counter[str]] = defaultdict(Counter)
    with ThreadPoolExecutor(max_workers=FETCHES) as pool:
        listed = list(zip(chosen, pool.map(targets, chosen), strict=True))
    for package, (_, files) in listed:
        lines = sum(lines_of(f) for f in files)
        disk = sum(f.stat().st_size for f in package.folder.rglob("*") if f.is_file())
        size[package.group].update(files=len(files), lines=lines, sources=1)
        print(f"{package.group:15} {package.corpus[:3]} {package.pin:40} {len(files):5} files "
              f"{lines:8,} lines {disk / 1e6:8.1f} MB unpacked", flush=True)
    for group, counts in size.items():
        print(f"{group}: {counts['sources']} sources, {counts['files']:,} files, "
              f"{counts['lines']:,} lines")
    return 0


def _row(code: str, counts: Counter[str]) -> str:
    found = sum(counts[v] for v in (*VERDICTS, "UNJUDGED"))
    return (f"{code:6} {counts['TRUE']:6} {counts['FALSE']:5} {counts['DEBATABLE']:6} "
            f"{counts['UNJUDGED']:8} {found:8}  {_rate(counts['TRUE'], found)} "
            f"{_rate(counts['TRUE'], counts['TRUE'] + counts['FALSE'])}")


def _rate(part: int, whole: int) -> str:
    return f"{100 * part / whole:5.1f}%" if whole else "     -"


if __name__ == "__main__":
    sys.exit(main())
